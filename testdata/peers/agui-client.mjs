// agui-client.mjs drives POST /agui/{agent} of a running `agentscope serve`
// (the keyless demo agent) with the real @ag-ui/client HttpAgent, pinned
// in package.json, and fails (exit 1) on anything the run does not do as
// README's AG-UI section says:
//
//   - text: a user message runs to RUN_FINISHED{outcome: success}, the
//     assistant's text among the run's new messages;
//   - confirm: "save a note" parks the run on one interrupt (confirm:<call>,
//     reason tool_call); the next runAgent answers it with resume[]
//     approved and the run completes with the tool's result;
//   - deny: the same interrupt answered cancelled completes without the
//     note saved;
//   - interrupt: a run of the "wait" tool, interrupted with the native
//     POST /sessions/{thread}/interrupt while the tool runs, ends with
//     RUN_FINISHED{outcome: cancelled};
//   - abort: a run of the "wait" tool aborted by the client (abortRun)
//     leaves the reply closed as interrupted on the server;
//   - every frame of every run, and of GET /sessions/{thread}/stream?
//     format=agui, passes @ag-ui/core's EventSchemas unchanged, with LF
//     framing; the client throws nothing and warns nothing.
//
// Environment: AGENTSCOPE_URL (http://host:port), AGENTSCOPE_USER (the
// X-User-ID), AGENT (default demo), PEERS_DIR (where node_modules is;
// default: this folder). It prints one JSON report: per scenario its
// thread, runs (the events' types) and errors, and the frames checked.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(process.env.PEERS_DIR || here, 'package.json'));
const { HttpAgent } = require('@ag-ui/client');
const { EventSchemas } = require('@ag-ui/core/schemas');

const base = process.env.AGENTSCOPE_URL;
const user = process.env.AGENTSCOPE_USER || 'agui-client';
const agentId = process.env.AGENT || 'demo';
if (!base) throw new Error('AGENTSCOPE_URL is required');

// The client's warnings are failures: it warns when it drops or repairs
// what it was sent.
const warnings = [];
for (const level of ['warn', 'error']) {
  console[level] = (...args) => warnings.push(args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
}

let framesChecked = 0;

function sameJSON(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJSON(a[k], b[k]));
}

// checkFrames validates an SSE body's frames: "data: <json>" frames split
// on "\n\n", LF only, each event as @ag-ui/core's schema has it (the
// schema changing nothing). Heartbeat comments are skipped.
function checkFrames(text, errors, where) {
  if (text.includes('\r')) errors.push(`${where}: CR in the stream`);
  const events = [];
  for (const frame of text.split('\n\n')) {
    if (frame === '') continue;
    const data = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith(':') || line.startsWith('id: ')) continue;
      if (!line.startsWith('data: ')) {
        errors.push(`${where}: a line that is not data: ${JSON.stringify(line)}`);
        continue;
      }
      data.push(line.slice(6));
    }
    if (data.length === 0) continue;
    let obj;
    try {
      obj = JSON.parse(data.join('\n'));
    } catch (e) {
      errors.push(`${where}: not JSON: ${data.join('\n')}`);
      continue;
    }
    framesChecked++;
    const r = EventSchemas.safeParse(obj);
    if (!r.success) errors.push(`${where}: ${obj?.type}: ${JSON.stringify(r.error.issues)}`);
    else if (!sameJSON(r.data, obj)) errors.push(`${where}: the schema changed ${JSON.stringify(obj)} -> ${JSON.stringify(r.data)}`);
    events.push(obj);
  }
  return events;
}

// newAgent is an HttpAgent on a thread of its own whose fetch keeps a
// copy of every response body, so the frames are checked as the server
// sent them rather than as the client parsed them.
function newAgent(name) {
  const bodies = [];
  const agent = new HttpAgent({
    url: `${base}/agui/${agentId}`,
    threadId: `agui-${name}-${process.pid}-${Date.now()}`,
    headers: { 'X-User-ID': user },
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      if (!res.body) return res;
      const [mine, theirs] = res.body.tee();
      const copy = { text: '', done: null };
      copy.done = (async () => {
        const dec = new TextDecoder();
        try {
          for await (const chunk of mine) copy.text += dec.decode(chunk, { stream: true });
        } catch {
          // Aborted with the client's request: what came is checked.
        }
      })();
      bodies.push(copy);
      return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
  });
  return { agent, bodies };
}

async function call(method, p) {
  const res = await fetch(base + p, { method, headers: { 'X-User-ID': user } });
  return { status: res.status, body: await res.json() };
}

function check(ok, what, errors) {
  if (!ok) errors.push(what);
}

// run is one runAgent with a subscriber that records the run's events and
// its RUN_FINISHED outcome; onEvent, when given, sees each event too.
async function run(a, params, onEvent) {
  const seen = { types: [], outcome: null, runErrors: [], thrown: null };
  try {
    const r = await a.runAgent(params, {
      onEvent: ({ event }) => {
        seen.types.push(event.type);
        if (onEvent) onEvent(event);
      },
      onRunFinishedEvent: ({ event }) => void (seen.outcome = event.outcome ?? null),
      onRunErrorEvent: ({ event }) => void seen.runErrors.push({ message: event.message, code: event.code }),
    });
    seen.newMessages = r.newMessages;
  } catch (e) {
    seen.thrown = e;
  }
  return seen;
}

function text(m) {
  return typeof m?.content === 'string' ? m.content : '';
}

async function waitIdle(thread, errors) {
  for (let i = 0; i < 500; i++) {
    const s = await call('GET', `/sessions/${encodeURIComponent(thread)}/status?agent_id=${agentId}`);
    if (s.status === 200 && s.body.status === 'idle') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  errors.push(`${thread} did not become idle`);
}

const scenarios = [];

async function scenario(name, fn) {
  const errors = [];
  const { agent, bodies } = newAgent(name);
  const runs = [];
  warnings.length = 0;
  try {
    await fn({ agent, errors, runs, run: async (params, onEvent) => {
      const r = await run(agent, params, onEvent);
      runs.push({ params: { runId: params.runId, resume: params.resume }, types: r.types, outcome: r.outcome, runErrors: r.runErrors, thrown: r.thrown ? `${r.thrown.name}: ${r.thrown.message}` : null });
      return r;
    } });
  } catch (e) {
    errors.push(`${e.name}: ${e.message}`);
  }
  for (const [i, b] of bodies.entries()) {
    await b.done;
    checkFrames(b.text, errors, `${name} response ${i}`);
  }
  for (const w of warnings) errors.push(`client warning: ${w}`);
  scenarios.push({ name, thread: agent.threadId, runs, errors });
  return agent;
}

// text
await scenario('text', async ({ agent, errors, run }) => {
  agent.addMessage({ id: 'm1', role: 'user', content: 'hello' });
  const r = await run({ runId: 'run-1' });
  check(!r.thrown, `runAgent threw: ${r.thrown}`, errors);
  check(r.outcome?.type === 'success', `outcome ${JSON.stringify(r.outcome)}`, errors);
  check(r.types[0] === 'RUN_STARTED' && r.types.includes('TEXT_MESSAGE_CONTENT'), `events ${r.types}`, errors);
  const said = (r.newMessages ?? []).filter((m) => m.role === 'assistant').map(text).join('');
  check(said.includes('You said: "hello"'), `the assistant said ${JSON.stringify(said)}`, errors);
});

// confirm, then approve
const confirmed = await scenario('confirm', async ({ agent, errors, run }) => {
  agent.addMessage({ id: 'm1', role: 'user', content: 'please save a note: buy milk' });
  const r1 = await run({ runId: 'run-1' });
  check(!r1.thrown, `runAgent threw: ${r1.thrown}`, errors);
  check(r1.outcome?.type === 'interrupt', `outcome ${JSON.stringify(r1.outcome)}`, errors);
  const pending = agent.pendingInterrupts ?? [];
  check(pending.length === 1 && pending[0].id.startsWith('confirm:') && pending[0].reason === 'tool_call' && pending[0].metadata?.toolName === 'save_note',
    `pending interrupts ${JSON.stringify(pending)}`, errors);
  if (pending.length !== 1) return;
  const r2 = await run({ runId: 'run-2', resume: [{ interruptId: pending[0].id, status: 'resolved', payload: { approved: true } }] });
  check(!r2.thrown, `the resumed runAgent threw: ${r2.thrown}`, errors);
  check(r2.outcome?.type === 'success', `resumed outcome ${JSON.stringify(r2.outcome)}`, errors);
  check((agent.pendingInterrupts ?? []).length === 0, `interrupts left ${JSON.stringify(agent.pendingInterrupts)}`, errors);
  const msgs = r2.newMessages ?? [];
  const tool = msgs.find((m) => m.role === 'tool' && m.toolCallId === pending[0].toolCallId);
  check(tool !== undefined, `no tool message for ${pending[0].toolCallId}: ${JSON.stringify(msgs)}`, errors);
  const said = msgs.filter((m) => m.role === 'assistant').map(text).join('');
  check(said.includes('saved the note "buy milk"'), `the assistant said ${JSON.stringify(said)}`, errors);
});

// confirm, then deny
await scenario('deny', async ({ agent, errors, run }) => {
  agent.addMessage({ id: 'm1', role: 'user', content: 'please save a note: buy bread' });
  const r1 = await run({ runId: 'run-1' });
  const pending = agent.pendingInterrupts ?? [];
  check(r1.outcome?.type === 'interrupt' && pending.length === 1, `outcome ${JSON.stringify(r1.outcome)}, pending ${JSON.stringify(pending)}`, errors);
  if (pending.length !== 1) return;
  const r2 = await run({ runId: 'run-2', resume: [{ interruptId: pending[0].id, status: 'cancelled' }] });
  check(!r2.thrown, `the resumed runAgent threw: ${r2.thrown}`, errors);
  check(r2.outcome?.type === 'success', `resumed outcome ${JSON.stringify(r2.outcome)}`, errors);
  const msgs = r2.newMessages ?? [];
  const tool = msgs.find((m) => m.role === 'tool' && m.toolCallId === pending[0].toolCallId);
  check(tool !== undefined && !text(tool).includes('saved'), `the denied call's result ${JSON.stringify(tool)}`, errors);
  const said = msgs.filter((m) => m.role === 'assistant').map(text).join('');
  check(!said.includes('saved the note'), `a denied note was saved: ${JSON.stringify(said)}`, errors);
});

// the native interrupt while the tool runs
await scenario('interrupt', async ({ agent, errors, run }) => {
  agent.addMessage({ id: 'm1', role: 'user', content: 'wait 30 seconds' });
  let sent = null;
  const r = await run({ runId: 'run-1' }, (ev) => {
    if (ev.type === 'CUSTOM' && ev.name === 'tool_result_start' && !sent) {
      sent = call('POST', `/sessions/${encodeURIComponent(agent.threadId)}/interrupt?agent_id=${agentId}`);
    }
  });
  check(sent !== null, 'the wait tool never started', errors);
  const answer = sent && (await sent);
  check(answer?.status === 202, `interrupt answered ${JSON.stringify(answer)}`, errors);
  check(!r.thrown, `runAgent threw: ${r.thrown}`, errors);
  check(r.outcome?.type === 'cancelled', `outcome ${JSON.stringify(r.outcome)}`, errors);
});

// the client aborts while the tool runs
await scenario('abort', async ({ agent, errors, run }) => {
  agent.addMessage({ id: 'm1', role: 'user', content: 'wait 30 seconds' });
  let aborted = false;
  const started = Date.now();
  const r = await run({ runId: 'run-1' }, (ev) => {
    if (ev.type === 'CUSTOM' && ev.name === 'tool_result_start' && !aborted) {
      aborted = true;
      setTimeout(() => agent.abortRun(), 50);
    }
  });
  check(aborted, 'the wait tool never started', errors);
  // An abort is the client's own doing: runAgent may resolve or reject
  // with an AbortError, nothing else.
  check(!r.thrown || r.thrown.name === 'AbortError', `runAgent threw: ${r.thrown}`, errors);
  await waitIdle(agent.threadId, errors);
  check(Date.now() - started < 20000, 'the aborted run went on as if nobody left', errors);
  const m = await call('GET', `/sessions/${encodeURIComponent(agent.threadId)}/messages?agent_id=${agentId}`);
  const last = m.body.messages?.[m.body.messages.length - 1];
  check(last?.finished_reason === 'interrupted', `the aborted reply ended ${JSON.stringify(last?.finished_reason)}`, errors);
});

// The confirmed thread's log as ?format=agui converts it.
{
  const errors = [];
  const ctl = new AbortController();
  let body = '';
  try {
    const res = await fetch(`${base}/sessions/${encodeURIComponent(confirmed.threadId)}/stream?format=agui&since=0&agent_id=${agentId}`, {
      headers: { 'X-User-ID': user },
      signal: ctl.signal,
    });
    check(res.status === 200 && res.headers.get('content-type') === 'text/event-stream', `stream ${res.status} ${res.headers.get('content-type')}`, errors);
    const dec = new TextDecoder();
    const timer = setTimeout(() => ctl.abort(), 10000);
    // The log's second RUN_FINISHED ends the resumed reply (the reference
    // conversion starts the reply again on the continuation's REPLY_START).
    for await (const chunk of res.body) {
      body += dec.decode(chunk, { stream: true });
      if (body.split('"type":"RUN_FINISHED"').length > 1 && body.endsWith('\n\n')) break;
    }
    clearTimeout(timer);
  } catch (e) {
    errors.push(`stream: ${e.name}: ${e.message}`);
  } finally {
    ctl.abort();
  }
  const events = checkFrames(body, errors, 'format=agui');
  const types = events.map((e) => e.type);
  check(types[0] === 'RUN_STARTED' && types.includes('RUN_FINISHED') && events.some((e) => e.type === 'CUSTOM' && e.name === 'require_user_confirm'),
    `format=agui events ${types}`, errors);
  scenarios.push({ name: 'format=agui', thread: confirmed.threadId, runs: [{ types }], errors });
}

const failed = scenarios.some((s) => s.errors.length > 0) || framesChecked === 0;
process.exitCode = failed ? 1 : 0;
process.stdout.write(JSON.stringify({ framesChecked, scenarios }, null, 1) + '\n');
