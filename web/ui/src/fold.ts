// The fold of a reply's events into its assistant Msg: message/fold.go's
// (*Msg).AppendEvent, move for move, on the wire JSON the server sends.
// The UI folds the SSE stream with it, and the time-travel scrubber folds
// a prefix of the log, so what the browser shows is what the server
// stores; test/fold.test.ts holds it to the fixtures the Go fold passes.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = { [k: string]: any };

export interface Source {
  type: "base64" | "url";
  data?: string;
  url?: string;
  media_type: string;
}

export interface Block extends Obj {
  type: string;
  id: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface Msg extends Obj {
  name: string;
  content: Block[];
  role: string;
  id: string;
  metadata: Obj;
  created_at: string;
  usage: Usage | null;
  finished_at: string | null;
  finished_reason: string | null;
  structured_output: Obj | null;
  error: { type: string; message: string } | null;
}

export interface Event extends Obj {
  type: string;
  id: string;
  created_at: string;
  metadata: Obj;
}

// The errors AppendEvent wraps in a FoldError (message/fold.go's Err*).
export const ErrOtherReply = "event belongs to another reply";
export const ErrNoReplyID = "event has no reply_id";
export const ErrBlockNotFound = "block not found";
export const ErrBadDelta = "delta cannot be applied";
export const ErrIllegalTransition = "illegal tool call state transition";

export class FoldError extends Error {
  constructor(
    readonly event: string,
    readonly ids: string,
    readonly err: string,
    readonly cause?: string,
  ) {
    super(`append ${event}${ids ? ` (${ids})` : ""}: ${err}${cause ? `: ${cause}` : ""}`);
  }
  // is reports whether the error wraps kind, as errors.Is does in Go: a
  // missing-block error may carry refused moves as its cause.
  is(kind: string): boolean {
    return this.err === kind || (kind === ErrIllegalTransition && !!this.cause?.includes(ErrIllegalTransition));
  }
}

// The tool-call state machine of block/callstate.go: who may move a call.
const states = ["pending", "asking", "allowed", "submitted", "finished"];
const L = 3; // the agent's move, which a replay makes too
const R = 2; // a replay's only
const transitions = [
  [L, L, L, R, L],
  [0, L, L, R, L],
  [0, L, L, L, L],
  [0, 0, 0, L, L],
  [0, 0, 0, 0, L],
];

// replay moves a call as folding a recorded event does; the refusal, if
// any, is returned and the call left as it was.
export function replay(call: Block, to: string): string | null {
  const from = call.state || "pending";
  const f = states.indexOf(from);
  const t = states.indexOf(to);
  if (f < 0 || t < 0 || (transitions[f][t] & R) === 0) {
    return `tool call ${JSON.stringify(call.id)}: ${call.state} → ${to} is not a legal replay move: ${ErrIllegalTransition}`;
  }
  call.state = to;
  return null;
}

// The events that name no reply (ReplyIDOf's false).
const noReply = new Set(["CUSTOM"]);

export function replyIDOf(e: Event): string | null {
  if (noReply.has(e.type)) return null;
  return typeof e.reply_id === "string" ? e.reply_id : "";
}

// newReply is AssistantMsg(name, nil, WithID(id), WithCreatedAt(at)): the
// empty message a reply's events are folded into.
export function newReply(name: string, id: string, createdAt: string): Msg {
  return {
    name,
    content: [],
    role: "assistant",
    id,
    metadata: {},
    created_at: createdAt,
    usage: null,
    finished_at: null,
    finished_reason: null,
    structured_output: null,
    error: null,
  };
}

// find is findAs: the first block of that kind and id.
function find(m: Msg, e: Event, kind: string, id: string): Block {
  for (const b of m.content) {
    if (b && b.type === kind && b.id === id) return b;
  }
  throw new FoldError(e.type, id, ErrBlockNotFound);
}

function findOpt(m: Msg, kind: string, id: string): Block | undefined {
  return m.content.find((b) => b && b.type === kind && b.id === id);
}

const b64 = /^[A-Za-z0-9+/]*={0,2}$/;

// decodeBase64 is Go's base64.StdEncoding decoding (padding required,
// newlines ignored), to a binary string.
export function decodeBase64(s: string): string {
  const t = s.replace(/[\r\n]/g, "");
  if (t.length % 4 !== 0 || !b64.test(t)) throw new Error(`illegal base64 data`);
  return atob(t);
}

// appendBase64 is (*block.Base64).AppendBase64: each chunk is decoded on
// its own (it carries its own padding) and the bytes appended, so the
// source holds the canonical encoding of all of them.
function appendBase64(src: Source, chunk: string): void {
  const have = decodeBase64(src.data ?? "");
  src.data = btoa(have + decodeBase64(chunk));
}

// normalizeURL is block.NormalizeURL for what a browser needs: a scheme
// is required, and an http(s) URL needs a host; scheme and host are lower
// case and an empty path is "/".
export function normalizeURL(u: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(u);
  if (!m) throw new Error(`invalid URL ${JSON.stringify(u)}: relative URL without a scheme`);
  const scheme = m[1].toLowerCase();
  let rest = m[2];
  const auth = /^\/\/([^/?#]*)(.*)$/s.exec(rest);
  if (auth) {
    const host = auth[1].replace(/[^@]*$/, (h) => h.toLowerCase());
    let tail = auth[2];
    if ((scheme === "http" || scheme === "https") && host === "") {
      throw new Error(`invalid URL ${JSON.stringify(u)}: empty host`);
    }
    if (host !== "" && (tail === "" || tail[0] === "?" || tail[0] === "#")) tail = "/" + tail;
    rest = "//" + host + tail;
  } else if (scheme === "http" || scheme === "https") {
    throw new Error(`invalid URL ${JSON.stringify(u)}: empty host`);
  }
  return scheme + ":" + rest;
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

// listOutput turns a plain-string tool output into a one-text-block list
// before a delta is added to it.
function listOutput(r: Block, e: Event): void {
  if (typeof r.output === "string") {
    r.output = [{ type: "text", id: e.id, text: r.output, created_at: e.created_at, finished_at: null }];
  } else if (!Array.isArray(r.output)) {
    r.output = [];
  }
}

// eachCall applies an event to each call it names; apply's refusals leave
// that call unchanged and are reported together with the missing calls.
function eachCall(m: Msg, e: Event, calls: (Obj | null)[], apply: (c: Block, from: Obj, i: number) => string[]): void {
  const missing: string[] = [];
  const refused: string[] = [];
  calls.forEach((from, i) => {
    if (!from) return;
    const c = findOpt(m, "tool_call", from.id);
    if (!c) {
      missing.push(from.id);
      return;
    }
    refused.push(...apply(c, from, i));
  });
  const illegal = refused.length ? refused.join("\n") : undefined;
  if (missing.length) throw new FoldError(e.type, missing.join(", "), ErrBlockNotFound, illegal);
  if (illegal) throw illegalMove(e, refused);
}

function illegalMove(e: Event, refused: string[]): FoldError {
  const ids = refused.map((r) => /^tool call "((?:[^"\\]|\\.)*)"/.exec(r)?.[1] ?? "");
  return new FoldError(e.type, ids.join(", "), ErrIllegalTransition, refused.join("\n"));
}

// appendEvent applies one event of m's reply, as (*Msg).AppendEvent does;
// it returns the FoldError that left m unchanged (or, for the events
// naming several calls, the calls it could not move), or null.
export function appendEvent(m: Msg, e: Event): FoldError | null {
  try {
    apply(m, e);
    return null;
  } catch (err) {
    if (err instanceof FoldError) return err;
    throw err;
  }
}

function apply(m: Msg, e: Event): void {
  const rid = replyIDOf(e);
  if (rid === null) throw new FoldError(e.type, "", ErrNoReplyID);
  if (rid !== m.id) throw new FoldError(e.type, rid, ErrOtherReply);
  const at = e.created_at;
  switch (e.type) {
    case "REPLY_END":
      m.finished_at = at;
      m.finished_reason = e.finished_reason || "completed";
      m.error = e.error ? { type: e.error.type || "unknown", message: e.error.message ?? "" } : null;
      return;
    case "MODEL_CALL_END": {
      const u = (m.usage ??= { input_tokens: 0, output_tokens: 0, cache_input_tokens: 0, cache_creation_input_tokens: 0 });
      u.input_tokens += e.input_tokens ?? 0;
      u.output_tokens += e.output_tokens ?? 0;
      u.cache_input_tokens += e.cache_input_tokens ?? 0;
      u.cache_creation_input_tokens += e.cache_creation_input_tokens ?? 0;
      return;
    }

    case "TEXT_BLOCK_START":
      m.content.push({ type: "text", id: e.block_id, text: "", created_at: at, finished_at: null });
      return;
    case "TEXT_BLOCK_DELTA":
      find(m, e, "text", e.block_id).text += e.delta ?? "";
      return;
    case "THINKING_BLOCK_START":
      m.content.push({ type: "thinking", id: e.block_id, thinking: "", created_at: at, finished_at: null });
      return;
    case "THINKING_BLOCK_DELTA":
      find(m, e, "thinking", e.block_id).thinking += e.delta ?? "";
      return;
    case "TEXT_BLOCK_END":
    case "THINKING_BLOCK_END":
    case "DATA_BLOCK_END":
      find(m, e, e.type.slice(0, e.type.indexOf("_")).toLowerCase(), e.block_id).finished_at = at;
      return;

    case "DATA_BLOCK_START":
      m.content.push({
        type: "data",
        id: e.block_id,
        source: { type: "base64", data: "", media_type: e.media_type ?? "" },
        name: null,
        created_at: at,
        finished_at: null,
      });
      return;
    case "DATA_BLOCK_DELTA": {
      const d = find(m, e, "data", e.block_id);
      if (!e.data) return;
      if (d.source?.type !== "base64") throw new FoldError(e.type, e.block_id, ErrBadDelta, "base64 delta for a URL source");
      // The delta's media_type is ignored, as in the reference.
      try {
        appendBase64(d.source, e.data);
      } catch (err) {
        throw new FoldError(e.type, e.block_id, ErrBadDelta, String((err as Error).message));
      }
      return;
    }

    case "HINT_BLOCK":
      m.content.push({
        type: "hint",
        hint: clone(e.hint ?? ""),
        id: e.block_id,
        source: e.source ?? null,
        created_at: at,
        finished_at: at,
      });
      return;

    case "TOOL_CALL_START":
      m.content.push({
        type: "tool_call",
        id: e.tool_call_id,
        name: e.tool_call_name ?? "",
        input: "",
        state: "pending",
        suggested_rules: [],
        created_at: at,
        finished_at: null,
      });
      return;
    case "TOOL_CALL_DELTA":
      find(m, e, "tool_call", e.tool_call_id).input += e.delta ?? "";
      return;
    case "TOOL_CALL_END":
      find(m, e, "tool_call", e.tool_call_id).finished_at = at;
      return;

    case "TOOL_RESULT_START":
      m.content.push({
        type: "tool_result",
        id: e.tool_call_id,
        name: e.tool_call_name ?? "",
        output: [],
        state: "running",
        metadata: {},
        created_at: at,
        finished_at: null,
      });
      return;
    case "TOOL_RESULT_TEXT_DELTA": {
      const r = find(m, e, "tool_result", e.tool_call_id);
      listOutput(r, e);
      const out = r.output as Block[];
      const last = out[out.length - 1];
      if (last && last.type === "text") last.text += e.delta ?? "";
      else out.push({ type: "text", id: e.id, text: e.delta ?? "", created_at: at, finished_at: null });
      return;
    }
    case "TOOL_RESULT_DATA_DELTA": {
      const r = find(m, e, "tool_result", e.tool_call_id);
      const hasData = e.data !== null && e.data !== undefined;
      const hasURL = e.url !== null && e.url !== undefined;
      let source: Source;
      if (hasData && !hasURL) {
        // "data": "" is a valid, empty chunk; only null is absent.
        source = { type: "base64", data: e.data, media_type: e.media_type ?? "" };
      } else if (hasURL && !hasData) {
        try {
          source = { type: "url", url: normalizeURL(e.url), media_type: e.media_type ?? "" };
        } catch (err) {
          throw new FoldError(e.type, e.tool_call_id, ErrBadDelta, String((err as Error).message));
        }
      } else {
        throw new FoldError(e.type, e.tool_call_id, ErrBadDelta, "exactly one of data and url must be set");
      }
      listOutput(r, e);
      (r.output as Block[]).push({ type: "data", id: e.block_id, source, name: null, created_at: at, finished_at: null });
      return;
    }
    case "TOOL_RESULT_END": {
      const r = find(m, e, "tool_result", e.tool_call_id);
      // The call first: a refused move leaves the whole message unchanged.
      const c = findOpt(m, "tool_call", e.tool_call_id);
      if (c) {
        const refused = replay(c, "finished");
        if (refused) throw illegalMove(e, [refused]);
      }
      r.state = e.state;
      r.metadata = clone(e.metadata ?? {});
      r.finished_at = at;
      return;
    }

    case "REQUIRE_USER_CONFIRM":
      eachCall(m, e, e.tool_calls ?? [], (c, from) => {
        const refused = replay(c, "asking");
        if (refused) return [refused];
        c.suggested_rules = clone(from.suggested_rules ?? []);
        return [];
      });
      return;
    case "REQUIRE_EXTERNAL_EXECUTION":
      eachCall(m, e, e.tool_calls ?? [], (c) => {
        const refused = replay(c, "submitted");
        return refused ? [refused] : [];
      });
      return;
    case "USER_CONFIRM_RESULT": {
      const results: Obj[] = (e.confirm_results ?? []).filter((r: Obj | null) => r);
      eachCall(
        m,
        e,
        results.map((r) => r.tool_call),
        (c, _from, i) => {
          // Stale answers (the call is no longer asking) are ignored.
          if (c.state !== "asking") return [];
          const refused = replay(c, results[i].confirmed ? "allowed" : "finished");
          return refused ? [refused] : [];
        },
      );
      return;
    }
    case "EXTERNAL_EXECUTION_RESULT":
      for (const r of e.execution_results ?? []) {
        if (!r) continue;
        if (findOpt(m, "tool_result", r.id)) continue; // already answered: the first result stands
        const c = clone(r);
        if (c.finished_at === null || c.finished_at === undefined) c.finished_at = at;
        m.content.push(c);
      }
      return;
  }
}

// foldReply folds one reply's events (its REPLY_START first, or a
// continuation given the id and name) into a fresh Msg whose created_at
// is the first event's, as the server's run does.
export function foldReply(events: Event[], id?: string, name?: string): Msg | null {
  let m: Msg | null = null;
  for (const e of events) {
    if (!m) {
      if (id === undefined) {
        if (e.type !== "REPLY_START") continue;
        m = newReply(name ?? e.name, e.reply_id, e.created_at);
      } else {
        m = newReply(name ?? "", id, e.created_at);
      }
    }
    appendEvent(m, e);
  }
  return m;
}

let seq = 0;

function freshID(): string {
  seq++;
  const r = Math.floor(Math.random() * 0xffffffff);
  return (Date.now().toString(16) + seq.toString(16).padStart(8, "0") + r.toString(16).padStart(8, "0")).padStart(32, "0").slice(-32);
}

function now(): string {
  return new Date().toISOString().replace("Z", "000").replace(/(\.\d{6})\d*$/, "$1");
}

function fillBlock(b: Obj | null, withID: boolean): void {
  if (!b || typeof b !== "object") return;
  if (withID && typeof b.id !== "string") b.id = freshID();
  if (typeof b.created_at !== "string") b.created_at = now();
  if (b.type === "tool_result") {
    b.state ??= "running";
    b.metadata ??= {};
    b.finished_at ??= null;
    if (Array.isArray(b.output)) b.output.forEach((o: Obj) => fillBlock(o, true));
  }
}

// decodeEvent fills what event.Decode fills in a frame that omits it: a
// fresh id and created_at, empty metadata, a fresh block_id for a
// tool-result data delta, and the absent fields of the blocks an input
// event carries. The server's frames omit none of it; the reference's
// fixtures do.
export function decodeEvent(raw: Obj): Event {
  const e = raw as Event;
  if (typeof e.id !== "string") e.id = freshID();
  if (typeof e.created_at !== "string") e.created_at = now();
  if (!e.metadata || typeof e.metadata !== "object") e.metadata = {};
  if (e.type === "TOOL_RESULT_DATA_DELTA" && typeof e.block_id !== "string") e.block_id = freshID();
  if (e.type === "EXTERNAL_EXECUTION_RESULT") (e.execution_results ?? []).forEach((b: Obj) => fillBlock(b, false));
  return e;
}
