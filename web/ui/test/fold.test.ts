// The TypeScript fold against the data the Go fold is tested on
// (message/fold_fixture_test.go, cmd/agentscope/fold_test.go): the
// reference's 39-event walk with its wrong-reply and ghost events, and
// every golden trace's folded replies. Run by web's Go tests through
// `node --test` on the compiled tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  appendEvent,
  decodeEvent,
  foldReply,
  newReply,
  normalizeURL,
  ErrBadDelta,
  ErrBlockNotFound,
  ErrIllegalTransition,
  ErrNoReplyID,
  ErrOtherReply,
  type Event,
  type Obj,
} from "../src/fold.ts";

// The spec data: $AGENTSCOPE_SHARED, as for the Go tests, else the
// repository's testdata (the Go test gives its path).
const dir = process.env.AGENTSCOPE_SHARED || process.env.AGENTSCOPE_TESTDATA || join(process.cwd(), "..", "..", "testdata");

function load(...elem: string[]): any {
  return JSON.parse(readFileSync(join(dir, ...elem), "utf8"));
}

// match is internal/fixture.Match: want's keys and no others, in any
// order; a string slot of subst stands for its value (null: any string).
function match(path: string, got: any, want: any, subst: Record<string, any>): void {
  if (typeof want === "string" && want in subst) {
    const v = subst[want];
    if (v === null) {
      assert.equal(typeof got, "string", `${path}: want any string, got ${JSON.stringify(got)}`);
      return;
    }
    want = v;
  }
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${path}: want array, got ${JSON.stringify(got)}`);
    assert.equal(got.length, want.length, `${path}: want ${want.length} elements, got ${got.length}`);
    want.forEach((w, i) => match(`${path}[${i}]`, got[i], w, subst));
    return;
  }
  if (want !== null && typeof want === "object") {
    assert.ok(got !== null && typeof got === "object" && !Array.isArray(got), `${path}: want object, got ${JSON.stringify(got)}`);
    for (const k of Object.keys(want).sort()) {
      assert.ok(k in got, `${path}.${k}: missing`);
      match(`${path}.${k}`, got[k], want[k], subst);
    }
    for (const k of Object.keys(got)) assert.ok(k in want, `${path}.${k}: unexpected key (value ${JSON.stringify(got[k])})`);
    return;
  }
  assert.deepEqual(got, want, `${path}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
}

// The wire JSON round trip drops what JSON would not carry.
const wire = (v: unknown) => JSON.parse(JSON.stringify(v));

test("the 39-event walk, compared after every event", () => {
  const fx = load("spec", "fixtures", "event_to_message_test.json");
  assert.equal(fx.steps.length, 39);
  const m = newReply(fx.initial_msg.name, fx.initial_msg.id, "2026-01-01T00:00:00.000000");
  const subst = { "<ANY_STRING>": null, "<UNCHANGED_FROM_INITIAL>": m.created_at };
  fx.steps.forEach((st: Obj, i: number) => {
    const e = decodeEvent(structuredClone(st.event));
    const err = appendEvent(m, e);
    assert.equal(err, null, `step ${i} (${e.type}): ${err?.message}`);
    match(`step ${i} (${e.type})`, wire(m), st.expected_msg, subst);
  });
});

test("another reply's event and the ghost events change nothing", () => {
  const fx = load("spec", "fixtures", "event_to_message_test.json");
  const m = newReply(fx.initial_msg.name, fx.initial_msg.id, "2026-01-01T00:00:00.000000");
  m.content.push({ type: "text", id: "t", text: "x", created_at: m.created_at, finished_at: null });
  const before = JSON.stringify(m);
  const err = appendEvent(m, decodeEvent(structuredClone(fx.wrong_reply_id_event)));
  assert.ok(err?.is(ErrOtherReply), `wrong reply id: got ${err}`);
  assert.equal(fx.ghost_events.length, 7);
  for (const raw of fx.ghost_events) {
    const e = decodeEvent(structuredClone(raw));
    const err = appendEvent(m, e);
    assert.ok(err?.is(ErrBlockNotFound) && err.event === e.type, `${e.type}: got ${err}`);
  }
  assert.equal(JSON.stringify(m), before);
});

test("a CUSTOM event belongs to no reply", () => {
  const m = newReply("a", "r", "t");
  const err = appendEvent(m, decodeEvent({ type: "CUSTOM", name: "state_updated", value: {} }));
  assert.ok(err?.is(ErrNoReplyID));
});

test("data deltas decode each chunk on its own; bad base64 is refused", () => {
  const m = newReply("a", "r", "t");
  const ev = (o: Obj) => decodeEvent({ reply_id: "r", block_id: "d", ...o });
  assert.equal(appendEvent(m, ev({ type: "DATA_BLOCK_START", media_type: "image/png" })), null);
  assert.equal(appendEvent(m, ev({ type: "DATA_BLOCK_DELTA", data: "YWI=", media_type: "image/png" })), null);
  assert.equal(appendEvent(m, ev({ type: "DATA_BLOCK_DELTA", data: "Yw==", media_type: "image/png" })), null);
  assert.equal(m.content[0].source.data, "YWJj");
  const before = JSON.stringify(m);
  assert.ok(appendEvent(m, ev({ type: "DATA_BLOCK_DELTA", data: "!!", media_type: "image/png" }))?.is(ErrBadDelta));
  assert.equal(JSON.stringify(m), before);
});

test("a finished call asked again is an illegal move, the call unchanged", () => {
  const m = newReply("a", "r", "t");
  const call = { type: "tool_call", id: "c", name: "x", input: "", state: "finished", suggested_rules: [] };
  m.content.push({ ...call, created_at: "t", finished_at: null });
  const err = appendEvent(m, decodeEvent({ type: "REQUIRE_USER_CONFIRM", reply_id: "r", tool_calls: [call] }));
  assert.ok(err?.is(ErrIllegalTransition), `got ${err}`);
  assert.equal(err?.ids, "c");
  assert.equal(m.content[0].state, "finished");
});

test("URLs normalize as block.NormalizeURL does", () => {
  assert.equal(normalizeURL("HTTPS://Example.COM"), "https://example.com/");
  assert.equal(normalizeURL("https://example.com/img.jpg"), "https://example.com/img.jpg");
  assert.throws(() => normalizeURL("img.jpg"));
  assert.throws(() => normalizeURL("http:///x"));
});

// The golden traces: generated ids become <id:N> by first appearance
// (keys visited in sorted order), timestamps <ts>, as
// cmd/agentscope/fold_test.go's normalize does on both sides.
const idPattern = /^(<id:\d+>|[0-9a-f]{32})$/;
const tsPattern = /^(<ts>|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?)$/;

function normalize(v: any): any {
  const ids = new Map<string, string>();
  const walk = (v: any): any => {
    if (typeof v === "string") {
      if (idPattern.test(v)) {
        if (!ids.has(v)) ids.set(v, `<id:${ids.size + 1}>`);
        return ids.get(v);
      }
      return tsPattern.test(v) ? "<ts>" : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v).sort()) v[k] = walk(v[k]);
    }
    return v;
  };
  return walk(wire(v));
}

test("every golden trace's folded replies", () => {
  const files = readdirSync(join(dir, "conformance", "golden")).filter((f) => f.endsWith(".json"));
  assert.ok(files.length >= 39, `${files.length} golden traces`);
  let replies = 0;
  for (const file of files) {
    const g = load("conformance", "golden", file);
    const order: string[] = [];
    const streams = new Map<string, Event[]>();
    for (const st of g.steps) {
      for (const item of st.stream ?? []) {
        if (!item.event) continue; // a {"msg": …} item
        const rid = item.event.reply_id;
        assert.equal(typeof rid, "string", `${file}: an event without reply_id`);
        if (!streams.has(rid)) {
          order.push(rid);
          streams.set(rid, []);
        }
        streams.get(rid)!.push(decodeEvent(structuredClone(item.event)));
      }
    }
    assert.deepEqual(
      order,
      g.folded_replies.map((f: Obj) => f.reply_id),
      `${file}: replies streamed and folded differ`,
    );
    for (const f of g.folded_replies) {
      const events = streams.get(f.reply_id)!;
      const m = newReply(events[0].name, f.reply_id, events[0].created_at);
      for (const e of events) {
        const err = appendEvent(m, e);
        assert.equal(err, null, `${file}: reply ${f.reply_id}: the reference skips nothing here, we skipped ${err?.message}`);
      }
      match(`${file}: ${f.reply_id}`, normalize(m), normalize(f.msg), {});
      assert.deepEqual(normalize(foldReply(events)), normalize(m));
      replies++;
    }
  }
  assert.ok(replies >= files.length, `compared ${replies} replies over ${files.length} traces`);
});
