// The web UI: the session list, a session's live conversation, the
// confirmation and external-result cards, Stop, and the time-travel
// scrubber. Plain DOM, no framework: the page is one view whose only hot
// path is a streaming reply, which is re-rendered at most once a frame.
import { api, APIError, setUnauthorizedHandler, setUser, Stream, user, type Frame, type SessionEntry } from "./api.ts";
import { type Block, type Obj } from "./fold.ts";
import { render, safeURL } from "./markdown.ts";
import { check as checkSchema } from "./schema.ts";
import { assemble, Folds, type Shown } from "./timeline.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | ((e: any) => void)> = {},
  ...kids: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === "function") e.addEventListener(k.replace(/^on/, ""), v);
    else if (v === true) e.setAttribute(k, "");
    else if (v !== false) e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined && k !== false) e.append(k);
  return e;
}

// ---------- banners ----------

function banner(text: string, kind: "error" | "info" = "error"): void {
  const b = $("banner");
  b.replaceChildren(h("span", {}, text), h("button", { type: "button", class: "link", onclick: () => b.replaceChildren() }, "Dismiss"));
  b.className = kind;
}

function errorText(err: unknown): string {
  if (err instanceof APIError) return `${err.status}: ${err.detail}`;
  return (err as Error)?.message ?? String(err);
}

// ---------- the token ----------

// One question however many calls were refused at once.
let asking: Promise<string | null> | null = null;
setUnauthorizedHandler(() => {
  asking ??= new Promise<string | null>((resolve) => {
    const d = $<HTMLDialogElement>("token-dialog");
    const input = $<HTMLInputElement>("token-input");
    input.value = "";
    d.onclose = () => {
      asking = null;
      resolve(d.returnValue === "ok" && input.value ? input.value : null);
    };
    d.showModal();
  });
  return asking;
});

// ---------- sessions ----------

const pageSize = 50;
let sessions: SessionEntry[] = [];
let sessionsTotal = 0;
let agents: Obj[] = [];

async function loadAgents(): Promise<void> {
  agents = (await api.agents()).agents;
  const sel = $<HTMLSelectElement>("agent-select");
  sel.replaceChildren(...agents.map((a) => h("option", { value: a.id }, `${a.data?.name ?? a.id} (${a.id})`)));
  // Until an agent is listed there is nothing to start a session on (and
  // a click would post an empty agent id).
  $<HTMLButtonElement>("new-session-button").disabled = agents.length === 0;
}

async function loadSessions(more = false): Promise<void> {
  const res = await api.sessions(pageSize, more ? sessions.length : 0);
  sessions = more ? sessions.concat(res.sessions) : res.sessions;
  sessionsTotal = res.total;
  renderSessions();
}

const statusLabel: Record<string, string> = {
  running: "running",
  idle: "idle",
  awaiting_permission: "awaiting permission",
  awaiting_external_result: "awaiting external result",
};

function renderSessions(): void {
  const list = $("session-list");
  list.replaceChildren(
    ...sessions.map((s) => {
      const id = s.session.id;
      return h(
        "li",
        { class: current?.id === id ? "current" : "" },
        h(
          "a",
          { href: `#/sessions/${id}`, "data-session": id },
          h("span", { class: "name" }, s.session.config?.name || `Session ${id.slice(0, 8)}`),
          h("span", { class: `badge ${s.status}` }, statusLabel[s.status] ?? s.status),
        ),
      );
    }),
  );
  $("more-sessions").hidden = sessions.length >= sessionsTotal;
}

function entryOf(id: string): SessionEntry | undefined {
  return sessions.find((s) => s.session.id === id);
}

// ---------- one open session ----------

interface Open {
  id: string;
  agentID: string;
  transcript: Obj[];
  hasMore: boolean;
  frames: Frame[];
  folds: Folds;
  stream: Stream;
  status: string;
  // at is the scrubber's position; null follows the live end.
  at: number | null;
  dirty: boolean;
  rendered: Map<string, { key: string; el: HTMLElement }>;
}

let current: Open | null = null;

async function openSession(id: string): Promise<void> {
  closeSession();
  $("empty").hidden = true;
  $("session").hidden = false;
  $("messages").replaceChildren();
  const entry = entryOf(id);
  const o: Open = {
    id,
    agentID: entry?.session.agent_id ?? "",
    transcript: [],
    hasMore: false,
    frames: [],
    folds: new Folds(),
    stream: null as unknown as Stream,
    status: entry?.status ?? "",
    at: null,
    dirty: true,
    rendered: new Map(),
  };
  current = o;
  renderSessions();
  $<HTMLInputElement>("session-name").value = entry?.session.config?.name ?? "";
  try {
    const page = await api.messages(id);
    if (current !== o) return;
    o.transcript = page.messages;
    o.hasMore = page.has_more;
    if (!o.agentID) void resolveAgent(o);
  } catch (err) {
    banner(`Could not open the session: ${errorText(err)}`);
    return;
  }
  // The first paint at once, not a frame later.
  draw(o);
  void refreshStatus(o);
  o.stream = new Stream(id, 0, (frames) => onFrames(o, frames), (ok, err) => onStreamState(o, ok, err));
}

// resolveAgent finds the agent of a session opened by URL, which the
// first page of the list may not hold.
async function resolveAgent(o: Open): Promise<void> {
  await listed;
  let e = entryOf(o.id);
  for (let offset = sessions.length; !e && offset < sessionsTotal; offset += 1000) {
    e = (await api.sessions(1000, offset)).sessions.find((s) => s.session.id === o.id);
  }
  if (current !== o || !e) return;
  o.agentID = e.session.agent_id;
  o.status ||= e.status;
  $<HTMLInputElement>("session-name").value = e.session.config?.name ?? "";
  renderSessions();
}

function closeSession(): void {
  current?.stream?.close();
  current = null;
}

function onStreamState(o: Open, ok: boolean, err?: string): void {
  if (current !== o) return;
  const c = $("connection");
  c.hidden = ok;
  c.textContent = ok ? "" : `Reconnecting to the stream… (${err ?? "disconnected"})`;
}

const parkOrEnd = new Set(["REPLY_END", "REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"]);

function onFrames(o: Open, frames: Frame[]): void {
  if (current !== o) return;
  let newRun = false;
  let settle = false;
  const byID = new Map(o.transcript.map((m) => [m.id, m]));
  for (const f of frames) {
    o.frames.push(f);
    const rid = f.event.reply_id;
    const before = o.folds.replies.has(rid);
    o.folds.add(f.seq, f.event);
    // The replay of what the transcript already holds finished asks for
    // nothing; a reply it lacks, or one it holds open, does.
    const stored = byID.get(rid);
    if (stored?.finished_reason) continue;
    if (f.event.type === "REPLY_START") {
      if (!before && !stored) newRun = true;
      o.status = "running";
      // The list's badge too: it is refreshed only when a reply parks
      // or ends, and would say "idle" for the whole run.
      const e = entryOf(o.id);
      if (e && e.status !== "running") {
        e.status = "running";
        renderSessions();
      }
    }
    if (parkOrEnd.has(f.event.type)) settle = true;
  }
  // A new run stored its input messages with its first event: fetch them.
  if (newRun) void refreshTranscript(o);
  if (settle) void refreshStatus(o);
  schedule();
}

async function refreshTranscript(o: Open): Promise<void> {
  try {
    const page = await api.messages(o.id);
    if (current !== o) return;
    const first = page.messages[0]?.id;
    const at = o.transcript.findIndex((m) => m.id === first);
    if (at >= 0) o.transcript = o.transcript.slice(0, at).concat(page.messages);
    else {
      o.transcript = page.messages;
      o.hasMore = page.has_more;
    }
    schedule();
  } catch (err) {
    banner(errorText(err));
  }
}

async function refreshStatus(o: Open): Promise<void> {
  try {
    const { status } = await api.status(o.id, o.agentID);
    if (current !== o) return;
    o.status = status;
    const e = entryOf(o.id);
    if (e) {
      e.status = status;
      renderSessions();
    }
    schedule();
  } catch {
    /* the next event tells again */
  }
}

// ---------- rendering ----------

let scheduled = false;
function schedule(): void {
  if (current) current.dirty = true;
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    if (current?.dirty) {
      current.dirty = false;
      draw(current);
    }
  });
}

function draw(o: Open): void {
  const live = o.at === null;
  const folds = live ? o.folds : Folds.of(o.frames, o.at!);
  const shown = assemble(o.transcript, folds);
  const box = $("messages");
  const stick = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const keep = new Set<string>();
  let prev: HTMLElement | null = null;
  for (const s of shown) {
    const id = s.msg.id;
    keep.add(id);
    let r = o.rendered.get(id);
    if (!r || r.key !== s.key) {
      const el = renderMsg(s);
      if (r) r.el.replaceWith(el);
      r = { key: s.key, el };
      o.rendered.set(id, r);
    }
    const want: ChildNode | null = prev ? prev.nextSibling : box.firstChild;
    if (want !== r.el) box.insertBefore(r.el, want);
    prev = r.el;
  }
  for (const [id, r] of o.rendered) {
    if (!keep.has(id)) {
      r.el.remove();
      o.rendered.delete(id);
    }
  }
  $("older").hidden = !o.hasMore;
  drawCards(o, live ? shown : []);
  drawControls(o, shown);
  // After the cards: they take room from the messages.
  if (stick) box.scrollTop = box.scrollHeight;
}

function drawControls(o: Open, shown: Shown[]): void {
  const last = o.folds.last;
  const range = $<HTMLInputElement>("scrubber");
  range.max = String(last);
  range.disabled = last === 0;
  if (o.at === null) range.value = String(last);
  const at = o.at ?? last;
  $("scrub-at").textContent = o.at === null ? `live · event ${last}` : `event ${at} of ${last}`;
  $("scrub-at").dataset.at = String(at);
  $<HTMLButtonElement>("live").disabled = o.at === null;
  const open = shown.some((s) => s.msg.role === "assistant" && !s.msg.finished_reason && !awaiting(s.msg).length);
  const running = o.at === null && (o.status === "running" || open) && !awaitingAny(shown);
  $<HTMLButtonElement>("stop").disabled = !running;
  $("status").textContent = statusLabel[o.status] ?? o.status;
  $("status").className = `badge ${o.status}`;
}

function awaiting(m: Obj): Block[] {
  const content: Block[] = m.content ?? [];
  // A submitted call already has its result block, opened (running) by
  // TOOL_RESULT_START before the reply parked; only a closed one answers it.
  const answered = new Set(content.filter((b) => b.type === "tool_result" && b.state !== "running").map((b) => b.id));
  return content.filter((b) => b.type === "tool_call" && !answered.has(b.id) && (b.state === "asking" || b.state === "submitted"));
}

function awaitingAny(shown: Shown[]): boolean {
  const last = shown[shown.length - 1];
  return !!last && last.msg.role === "assistant" && awaiting(last.msg).length > 0;
}

function renderMsg(s: Shown): HTMLElement {
  const m = s.msg;
  const art = h("article", { class: `msg ${m.role}`, "data-id": m.id, "aria-label": `${m.role} message` });
  art.append(h("header", {}, h("span", { class: "who" }, m.name || m.role)));
  const content: Block[] = Array.isArray(m.content) ? m.content : [];
  for (const b of content) {
    const el = renderBlock(b, m.role === "assistant" && !m.finished_reason);
    if (el) art.append(el);
  }
  if (m.error) {
    art.append(h("div", { class: "error", role: "alert" }, h("strong", {}, m.error.type || "error"), ": ", m.error.message ?? ""));
  }
  if (m.role === "assistant") {
    const bits: string[] = [];
    if (m.finished_reason) bits.push(`finished: ${m.finished_reason}`);
    if (m.usage) bits.push(`tokens: ${m.usage.input_tokens} in, ${m.usage.output_tokens} out`);
    if (bits.length) art.append(h("footer", {}, bits.join(" · ")));
  }
  return art;
}

function dataBlock(b: Block): HTMLElement {
  const src = b.source ?? {};
  const mt: string = src.media_type ?? "";
  if (src.type === "base64") {
    const url = `data:${mt};base64,${src.data ?? ""}`;
    if (/^image\//.test(mt) && src.data) return h("img", { class: "data", src: url, alt: b.name ?? mt });
    if (/^audio\//.test(mt) && src.data) return h("audio", { controls: true, src: url });
    if (/^video\//.test(mt) && src.data) return h("video", { controls: true, src: url });
    return h("div", { class: "data" }, `${mt || "data"}: ${Math.floor(((src.data ?? "").length * 3) / 4)} bytes`);
  }
  // Not fetched: the page loads nothing from elsewhere.
  const href = safeURL(src.url ?? "");
  return h(
    "div",
    { class: "data" },
    `${mt || "data"} at `,
    href ? h("a", { href, rel: "noopener noreferrer nofollow", target: "_blank" }, href) : String(src.url ?? ""),
  );
}

function prettyJSON(s: string): string {
  try {
    return JSON.stringify(JSON.parse(s), null, 2);
  } catch {
    return s;
  }
}

function renderBlock(b: Block, streaming: boolean): HTMLElement | null {
  switch (b.type) {
    case "text":
      return h("div", { class: "md" }, render(b.text ?? ""));
    case "thinking":
      return h("details", { class: "thinking" }, h("summary", {}, streaming && !b.finished_at ? "Thinking…" : "Thinking"), h("div", { class: "md" }, render(b.thinking ?? "")));
    case "data":
      return dataBlock(b);
    case "hint":
      return h(
        "details",
        { class: "hint" },
        h("summary", {}, "Hint"),
        typeof b.hint === "string" ? b.hint : Array.isArray(b.hint) ? b.hint.map((x: Obj) => x?.text ?? "").join("") : JSON.stringify(b.hint),
      );
    case "tool_call":
      return h(
        "div",
        { class: "tool call", "data-call": b.id, "data-state": b.state },
        h("div", { class: "tool-head" }, h("span", { class: "tool-name" }, b.name), h("span", { class: `badge ${b.state}` }, b.state)),
        h("pre", { class: "args" }, prettyJSON(b.input ?? "")),
      );
    case "tool_result": {
      const out = b.output;
      const body: (Node | string)[] = [];
      if (typeof out === "string") body.push(h("pre", {}, out));
      else if (Array.isArray(out))
        for (const o of out) {
          if (o?.type === "text") body.push(h("pre", {}, o.text ?? ""));
          else if (o?.type === "data") body.push(dataBlock(o));
        }
      return h(
        "div",
        { class: "tool result", "data-result": b.id, "data-state": b.state },
        h("div", { class: "tool-head" }, h("span", { class: "tool-name" }, `${b.name} result`), h("span", { class: `badge ${b.state}` }, b.state)),
        ...body,
      );
    }
  }
  return null;
}

// ---------- humans in the loop ----------

function drawCards(o: Open, shown: Shown[]): void {
  const box = $("cards");
  const last = shown[shown.length - 1];
  const calls = last && last.msg.role === "assistant" ? awaiting(last.msg) : [];
  const keep = new Set(calls.map((c) => `${c.state}:${c.id}`));
  for (const el of Array.from(box.children) as HTMLElement[]) {
    if (!keep.has(el.dataset.card!)) el.remove();
  }
  for (const c of calls) {
    const key = `${c.state}:${c.id}`;
    if (box.querySelector(`[data-card="${CSS.escape(key)}"]`)) continue;
    box.append(c.state === "asking" ? confirmCard(o, last.msg.id, c) : externalCard(o, last.msg.id, c));
  }
}

// toolSchemas are an agent's tools' parameter schemas by name, fetched
// once per agent (GET /agent/{aid}/tools).
const schemas = new Map<string, Promise<Map<string, unknown>>>();
function toolSchemas(agentID: string): Promise<Map<string, unknown>> {
  let p = schemas.get(agentID);
  if (!p) {
    p = api.tools(agentID).then((r) => new Map(r.tools.map((t) => [t.name, t.parameters])));
    p.catch(() => schemas.delete(agentID));
    schemas.set(agentID, p);
  }
  return p;
}

function confirmCard(o: Open, replyID: string, c: Block): HTMLElement {
  const rules: Obj[] = c.suggested_rules ?? [];
  const remember = h("input", { type: "checkbox", id: `remember-${c.id}` }) as HTMLInputElement;
  const editor = h("textarea", { class: "edit", "aria-label": `Arguments of ${c.name}`, hidden: true, rows: "6" }) as HTMLTextAreaElement;
  const problem = h("p", { class: "problem", role: "alert" });
  const buttons = h("div", { class: "buttons" });
  const answer = async (confirmed: boolean) => {
    const call = { ...c };
    if (confirmed && !editor.hidden) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(editor.value);
      } catch (err) {
        problem.textContent = `The arguments are not JSON: ${(err as Error).message}`;
        return;
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        problem.textContent = "The arguments must be a JSON object.";
        return;
      }
      let schema: unknown;
      try {
        schema = (await toolSchemas(o.agentID)).get(c.name);
      } catch {
        // Not fetched: the tool checks its input when it runs.
      }
      const wrong = checkSchema(schema, parsed);
      if (wrong) {
        problem.textContent = `The arguments do not fit ${c.name}'s schema: ${wrong}.`;
        return;
      }
      call.input = JSON.stringify(parsed);
    }
    for (const b of buttons.querySelectorAll("button")) b.disabled = true;
    try {
      await api.chat(o.agentID, o.id, {
        type: "USER_CONFIRM_RESULT",
        reply_id: replyID,
        confirm_results: [{ confirmed, tool_call: call, rules: confirmed && remember.checked ? rules : null }],
      });
    } catch (err) {
      problem.textContent = errorText(err);
      for (const b of buttons.querySelectorAll("button")) b.disabled = false;
    }
  };
  buttons.append(
    h("button", { type: "button", class: "primary", onclick: () => answer(true) }, "Approve"),
    h("button", { type: "button", onclick: () => answer(false) }, "Deny"),
    h(
      "button",
      {
        type: "button",
        onclick: () => {
          editor.hidden = !editor.hidden;
          if (!editor.hidden) {
            editor.value = prettyJSON(c.input ?? "");
            editor.focus();
          }
        },
      },
      "Edit",
    ),
  );
  return h(
    "section",
    { class: "card confirm", "data-card": `asking:${c.id}`, "aria-label": `Confirm ${c.name}` },
    h("h3", {}, "Allow ", h("code", {}, c.name), "?"),
    h("pre", { class: "args" }, prettyJSON(c.input ?? "")),
    editor,
    rules.length
      ? h(
          "label",
          { class: "remember" },
          remember,
          ` Remember: ${rules.map((r) => `${r.behavior} ${r.tool_name}${r.rule_content ? ` (${r.rule_content})` : ""}`).join(", ")}`,
        )
      : null,
    buttons,
    problem,
  );
}

function externalCard(o: Open, replyID: string, c: Block): HTMLElement {
  const input = h("textarea", { "aria-label": `Result of ${c.name}`, rows: "4" }) as HTMLTextAreaElement;
  const problem = h("p", { class: "problem", role: "alert" });
  const submit = async (state: string) => {
    try {
      await api.chat(o.agentID, o.id, {
        type: "EXTERNAL_EXECUTION_RESULT",
        reply_id: replyID,
        execution_results: [{ type: "tool_result", id: c.id, name: c.name, output: input.value, state, metadata: {} }],
      });
    } catch (err) {
      problem.textContent = errorText(err);
    }
  };
  return h(
    "section",
    { class: "card external", "data-card": `submitted:${c.id}`, "aria-label": `Result of ${c.name}` },
    h("h3", {}, "Run ", h("code", {}, c.name), " and paste its result"),
    h("pre", { class: "args" }, prettyJSON(c.input ?? "")),
    input,
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "button", class: "primary", onclick: () => submit("success") }, "Submit result"),
      h("button", { type: "button", onclick: () => submit("error") }, "Submit as error"),
    ),
    problem,
  );
}

// ---------- the composer, Stop, the scrubber ----------

async function send(): Promise<void> {
  const o = current;
  const box = $<HTMLTextAreaElement>("message");
  const text = box.value;
  if (!o || !text.trim()) return;
  const sendBtn = $<HTMLButtonElement>("send");
  sendBtn.disabled = true;
  try {
    if (!o.agentID) await resolveAgent(o);
    await api.chat(o.agentID, o.id, { role: "user", name: user(), content: [{ type: "text", text }] });
    box.value = "";
    o.at = null;
    void refreshTranscript(o);
  } catch (err) {
    banner(errorText(err));
  } finally {
    sendBtn.disabled = false;
  }
}

function wire(): void {
  const box = $<HTMLTextAreaElement>("message");
  box.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void send();
    }
  });
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    void send();
  });
  $("stop").addEventListener("click", async () => {
    if (!current) return;
    try {
      await api.interrupt(current.id);
    } catch (err) {
      banner(errorText(err));
    }
  });
  const range = $<HTMLInputElement>("scrubber");
  range.addEventListener("input", () => {
    if (!current) return;
    const v = Number(range.value);
    current.at = v >= current.folds.last ? null : v;
    schedule();
  });
  $("live").addEventListener("click", () => {
    if (!current) return;
    current.at = null;
    schedule();
  });
  $("older").addEventListener("click", async () => {
    const o = current;
    if (!o || !o.transcript.length) return;
    try {
      const page = await api.messages(o.id, o.transcript[0].id);
      o.transcript = page.messages.concat(o.transcript);
      o.hasMore = page.has_more;
      schedule();
    } catch (err) {
      banner(errorText(err));
    }
  });
  $("new-session").addEventListener("submit", async (e) => {
    e.preventDefault();
    const agentID = $<HTMLSelectElement>("agent-select").value;
    try {
      const { session_id } = await api.createSession(agentID);
      await loadSessions();
      location.hash = `#/sessions/${session_id}`;
    } catch (err) {
      banner(errorText(err));
    }
  });
  $("more-sessions").addEventListener("click", () => void loadSessions(true).catch((err) => banner(errorText(err))));
  $("rename").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!current) return;
    try {
      await api.rename(current.id, $<HTMLInputElement>("session-name").value);
      await loadSessions();
    } catch (err) {
      banner(errorText(err));
    }
  });
  $("delete").addEventListener("click", async () => {
    if (!current || !confirm("Delete this session and its history?")) return;
    try {
      await api.remove(current.id);
      closeSession();
      location.hash = "#/";
      await loadSessions();
    } catch (err) {
      banner(errorText(err));
    }
  });
  const u = $<HTMLInputElement>("user");
  u.value = user();
  $("user-form").addEventListener("submit", (e) => {
    e.preventDefault();
    setUser(u.value.trim() || "me");
    location.hash = "#/";
    location.reload();
  });
  $("toggle-sessions").addEventListener("click", () => document.body.classList.toggle("show-sessions"));
  window.addEventListener("hashchange", route);
}

function route(): void {
  const m = /^#\/sessions\/([^/]+)$/.exec(location.hash);
  document.body.classList.remove("show-sessions");
  if (m) {
    const id = decodeURIComponent(m[1]);
    if (current?.id !== id) void openSession(id);
  } else {
    closeSession();
    $("session").hidden = true;
    $("empty").hidden = false;
    renderSessions();
  }
}

let listed: Promise<void> = Promise.resolve();

async function main(): Promise<void> {
  wire();
  // The session of the URL does not wait for the lists.
  listed = Promise.all([loadAgents(), loadSessions()]).then(
    () => undefined,
    (err) => banner(errorText(err)),
  );
  route();
}

void main();
