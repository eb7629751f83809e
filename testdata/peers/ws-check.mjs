// ws-check.mjs drives GET /sessions/{id}/ws of a running `agentscope serve`
// (the keyless demo agent) with the npm `ws` client, and fails (exit 1)
// on anything the socket does not do as README's WebSocket section says:
//
//   - a chat over the socket is answered {"id","status":200,"body":{...}}
//     and its events come as {"seq","event"} frames from seq 1;
//   - another user's session is refused at the handshake with 404;
//   - a second socket opened with ?since=K replays exactly the events
//     after K, with the same sequences, then goes on live;
//   - the reply parked on save_note resumes on a USER_CONFIRM_RESULT sent
//     over the socket; that socket is dropped mid-reply (no close
//     handshake) and a third, opened with ?since= its last seq, gets the
//     rest: nothing lost, nothing twice, as a fourth socket replaying the
//     whole log from ?since=0 shows;
//   - a chat while a run holds the session is 409, a malformed frame 400
//     (the socket goes on), an interrupt 202 and the run ends interrupted;
//   - a socket left idle past the listener's read timeout still works.
//
// Environment: AGENTSCOPE_URL (http://host:port), AGENTSCOPE_USER (the
// X-User-ID), PEERS_DIR (where node_modules is; default: this folder),
// IDLE_MS (how long the socket idles before the confirmation).
// It prints one JSON object: the session id and the [seq, type] of every
// event of the log, for the Go test to hold against the SSE stream.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(process.env.PEERS_DIR || here, 'package.json'));
const WebSocket = require('ws');

const base = process.env.AGENTSCOPE_URL;
const user = process.env.AGENTSCOPE_USER || 'ws-check';
const idleMs = Number(process.env.IDLE_MS || 0);
if (!base) throw new Error('AGENTSCOPE_URL is required');

function check(ok, what) {
  if (!ok) throw new Error(what);
}

async function call(method, p, body) {
  const res = await fetch(base + p, {
    method,
    headers: { 'X-User-ID': user, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

// Sock is one socket: its event frames queued in order, its replies
// matched to the frames' ids.
class Sock {
  constructor(sid, query = '', who = user) {
    this.events = [];
    this.waiters = [];
    this.replies = [];
    this.replyWaiters = [];
    this.ended = false;
    const url = base.replace(/^http/, 'ws') + '/sessions/' + sid + '/ws' + query;
    this.ws = new WebSocket(url, { headers: { 'X-User-ID': who } });
    this.open = new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('unexpected-response', (req, res) => {
        // ws leaves a refused handshake's connection open once this
        // event is handled: it would keep node alive until the server's
        // idle timeout.
        const conn = res.socket;
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => {
          conn.destroy();
          reject(Object.assign(new Error(`handshake ${res.statusCode} ${body}`), { status: res.statusCode, body }));
        });
      });
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => { this.ended = true; this.wake(); resolve(code); }));
    this.ws.on('message', (data, isBinary) => {
      check(!isBinary, 'a binary frame from the server');
      const f = JSON.parse(data.toString('utf8'));
      if ('event' in f) {
        check(Number.isInteger(f.seq) && typeof f.event.type === 'string', `event frame ${data}`);
        this.events.push(f);
      } else {
        check(Number.isInteger(f.status) && 'body' in f, `reply frame ${data}`);
        this.replies.push(f);
      }
      this.wake();
    });
  }

  wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  async wait(cond, what, ms = 30000) {
    const deadline = Date.now() + ms;
    while (!cond()) {
      check(!this.ended, `socket closed waiting for ${what}`);
      check(Date.now() < deadline, `no ${what} within ${ms} ms`);
      await new Promise((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  // next is the next event frame not taken yet.
  async next() {
    await this.wait(() => this.events.length > 0, 'event');
    return this.events.shift();
  }

  async until(type) {
    const out = [];
    for (;;) {
      const f = await this.next();
      out.push(f);
      if (f.event.type === type) return out;
    }
  }

  // ask sends a frame and resolves to the reply with its id.
  async ask(frame) {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    const id = typeof frame === 'string' ? undefined : frame.id;
    let r;
    await this.wait(() => (r = this.replies.find((x) => x.id === id)) !== undefined, `reply to ${id}`);
    this.replies.splice(this.replies.indexOf(r), 1);
    return r;
  }
}

function contiguous(frames, first, what) {
  frames.forEach((f, i) => check(f.seq === first + i, `${what}: frame ${i} has seq ${f.seq}, want ${first + i}`));
}

const msg = (text) => ({ role: 'user', name: user, content: [{ type: 'text', text }] });
const chat = (id, input) => ({ id, type: 'chat', agent_id: 'demo', input });

const created = await call('POST', '/sessions/', { agent_id: 'demo' });
check(created.status === 201, `create session: ${JSON.stringify(created)}`);
const sid = created.body.session_id;

// Another user's session: 404 at the handshake.
try {
  await new Sock(sid, '', 'someone-else').open;
  check(false, "another user's session was let in");
} catch (err) {
  check(err.status === 404 && /Session not found/.test(err.body), `another user's session: ${err.message}`);
}

// A: chat over the socket; the reply streams and parks on save_note.
const a = new Sock(sid);
await a.open;
let r = await a.ask(chat('c1', msg('please save a note: buy milk')));
check(r.status === 200 && r.body.status === 'started' && r.body.session_id === sid, `chat: ${JSON.stringify(r)}`);
const first = await a.until('REQUIRE_USER_CONFIRM');
contiguous(first, 1, 'first reply');
check(first.some((f) => /_BLOCK_DELTA$/.test(f.event.type)), 'the reply did not stream');

// B: replay from a sequence id, the same frames as A's after it.
const k = 3;
const b = new Sock(sid, `?since=${k}`);
await b.open;
const replay = await b.until('REQUIRE_USER_CONFIRM');
check(replay.length === first.length - k, `replay of ${replay.length} frames, want ${first.length - k}`);
replay.forEach((f, i) => check(JSON.stringify(f) === JSON.stringify(first[k + i]), `replayed frame ${f.seq} differs`));
a.ws.close(1000);
await a.closed;

// Idle past the listener's read timeout: the socket is not cut.
await new Promise((resolve) => setTimeout(resolve, idleMs));
check(!b.ended, 'the socket ended while idle');

// The confirmation over the socket resumes the parked reply.
const rq = first[first.length - 1].event;
r = await b.ask(chat('c2', { type: 'USER_CONFIRM_RESULT', reply_id: rq.reply_id, confirm_results: [{ confirmed: true, tool_call: rq.tool_calls[0] }] }));
check(r.status === 200, `confirm: ${JSON.stringify(r)}`);
const got = [await b.next(), await b.next(), await b.next()];
check(got[0].event.type === 'USER_CONFIRM_RESULT', `the resume starts with ${got[0].event.type}`);
// Dropped without a close handshake, mid-reply.
b.ws.terminate();
await b.closed;
const c = new Sock(sid, `?since=${got[got.length - 1].seq}`);
await c.open;
got.push(...(await c.until('REPLY_END')));
contiguous(got, first.length + 1, 'the resume across the drop');
const end = got[got.length - 1].event;
check(end.finished_reason === 'completed', `the reply ended ${end.finished_reason}`);
check(got.some((f) => f.event.type === 'TOOL_RESULT_END' && f.event.state === 'success'), 'save_note did not run');

// D: the whole log from ?since=0 is what A, B and C gave, once each.
const d = new Sock(sid, '?since=0');
await d.open;
const whole = await d.until('REPLY_END');
const seen = [...first, ...got];
check(whole.length === seen.length, `the log has ${whole.length} events, the sockets gave ${seen.length}`);
whole.forEach((f, i) => check(JSON.stringify(f) === JSON.stringify(seen[i]), `log frame ${f.seq} differs from the one the sockets gave`));

// A run in progress: a chat is 409, a malformed frame 400, the socket
// goes on; an interrupt is 202 and the run ends interrupted.
r = await c.ask(chat('c3', msg('wait 30 seconds')));
check(r.status === 200, `chat: ${JSON.stringify(r)}`);
const run = await c.until('TOOL_CALL_END');
r = await c.ask(chat('c4', msg('are you there?')));
check(r.status === 409 && r.body.detail === 'Session is running', `chat while running: ${JSON.stringify(r)}`);
r = await c.ask('this is not a frame');
check(r.status === 400 && r.id === undefined && typeof r.body.detail === 'string', `malformed frame: ${JSON.stringify(r)}`);
r = await c.ask({ id: 'i1', type: 'interrupt' });
check(r.status === 202 && r.body.session_id === sid, `interrupt: ${JSON.stringify(r)}`);
run.push(...(await c.until('REPLY_END')));
check(run[run.length - 1].event.finished_reason === 'interrupted', 'the run was not interrupted');
contiguous(run, whole.length + 1, 'the interrupted run');
// D, open all along, got the same frames live.
const tail = await d.until('REPLY_END');
check(JSON.stringify(tail) === JSON.stringify(run), 'the live frames of two sockets differ');

c.ws.close(1000);
d.ws.close(1000);
await Promise.all([c.closed, d.closed]);
console.log(JSON.stringify({ session_id: sid, events: [...whole, ...tail].map((f) => [f.seq, f.event.type]) }));
