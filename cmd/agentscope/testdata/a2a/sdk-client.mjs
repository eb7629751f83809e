// The real @a2a-js/sdk client against agentscope serve's A2A binding:
// send, stream, input-required then resume, subscribe and cancel, and a
// typed error. Run by cmd/agentscope's TestA2ASDKClient with
// PEERS (the npm peers' folder), A2A_URL (serve's base URL), A2A_TOKEN
// and A2A_USER; it exits non-zero, saying why, at the first thing wrong,
// and prints one "ok <step>" line per step done.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';

const sdk = (p) => import(pathToFileURL(path.join(process.env.PEERS, 'node_modules/@a2a-js/sdk/dist', p)).href);
const { ClientFactory, JsonRpcTransportFactory, DefaultAgentCardResolver } = await sdk('client/index.js');
const { Role, TaskState } = await sdk('index.js');
const { TaskNotFoundError, TaskNotCancelableError } = await sdk('errors/index.js');

// Every request, the card's too, carries the token and the user: what the
// card's security schemes ask for.
const fetchImpl = (url, init = {}) => {
  const headers = new Headers(init.headers ?? {});
  headers.set('Authorization', `Bearer ${process.env.A2A_TOKEN}`);
  headers.set('X-User-ID', process.env.A2A_USER);
  return fetch(url, { ...init, headers });
};
const factory = new ClientFactory({
  transports: [new JsonRpcTransportFactory({ fetchImpl })],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
});
const client = await factory.createFromUrl(process.env.A2A_URL);
assert.equal(client.agentCard.capabilities.streaming, true);
console.log('ok card', client.agentCard.name, client.agentCard.supportedInterfaces[0].url);

const text = (parts) => parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');
const artifactsText = (task) => (task.artifacts ?? []).map((a) => text(a.parts)).join('\n');
let n = 0;
const message = (value, extra = {}) => ({
  message: { messageId: `m${++n}`, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value } }], ...extra },
});
const stateName = (s) => TaskState[s];

// 1. send: a blocking SendMessage completes with the demo model's answer.
const sent = await client.sendMessage(message('What is 2+3?'));
assert.equal(stateName(sent.status.state), 'TASK_STATE_COMPLETED', JSON.stringify(sent));
assert.match(artifactsText(sent), /5/);
assert.ok(sent.contextId && sent.id.startsWith(sent.contextId));
console.log('ok send', JSON.stringify(artifactsText(sent)));

// 2. stream: the task first, then the text as artifact updates, then
// completed; GetTask has the same text.
const events = [];
for await (const ev of client.sendMessageStream(message('hello', { contextId: sent.contextId }))) events.push(ev.payload);
assert.equal(events[0].$case, 'task');
const streamedID = events[0].value.id;
const deltas = events.filter((e) => e.$case === 'artifactUpdate').map((e) => text(e.value.artifact.parts)).join('');
assert.ok(events.filter((e) => e.$case === 'artifactUpdate').length > 3, 'the text came in pieces');
const last = events[events.length - 1];
assert.equal(last.$case, 'statusUpdate');
assert.equal(stateName(last.value.status.state), 'TASK_STATE_COMPLETED');
assert.match(deltas, /demo model/);
const got = await client.getTask({ id: streamedID });
assert.equal(artifactsText(got), deltas);
assert.equal(got.contextId, sent.contextId);
console.log('ok stream', events.length, 'events');

// 3. input required: save_note asks first; the task says what it waits
// for; "yes" on the task resumes it (streamed) and it completes.
const parked = await client.sendMessage(message('save a note: buy milk'));
assert.equal(stateName(parked.status.state), 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(parked));
assert.match(text(parked.status.message.parts), /save_note/);
const data = parked.status.message.parts.find((p) => p.content?.$case === 'data').content.value;
assert.equal(data.pendingToolCalls[0].name, 'save_note');
assert.equal(data.pendingToolCalls[0].awaiting, 'confirmation');
const resumed = [];
for await (const ev of client.sendMessageStream(message('yes', { taskId: parked.id, contextId: parked.contextId }))) resumed.push(ev.payload);
assert.equal(resumed[0].$case, 'task');
assert.equal(resumed[0].value.id, parked.id);
const end = resumed[resumed.length - 1];
assert.equal(stateName(end.value.status.state), 'TASK_STATE_COMPLETED');
const done = await client.getTask({ id: parked.id });
assert.match(artifactsText(done), /buy milk/);
console.log('ok input-required', JSON.stringify(artifactsText(done)));

// 4. cancel: a task that waits 30 seconds, returned at once, followed by
// a subscriber, then cancelled.
const slow = await client.sendMessage({ ...message('wait 30 seconds'), configuration: { returnImmediately: true } });
assert.equal(stateName(slow.status.state), 'TASK_STATE_WORKING');
const sub = (async () => {
  const seen = [];
  for await (const ev of client.resubscribeTask({ id: slow.id })) seen.push(ev.payload);
  return seen;
})();
await new Promise((r) => setTimeout(r, 300));
const canceled = await client.cancelTask({ id: slow.id });
assert.equal(stateName(canceled.status.state), 'TASK_STATE_CANCELED');
const seen = await sub;
assert.equal(seen[0].$case, 'task');
assert.equal(stateName(seen[seen.length - 1].value.status.state), 'TASK_STATE_CANCELED');
console.log('ok cancel');

// 5. the errors are the SDK's typed ones.
await assert.rejects(client.getTask({ id: 'no-such-task' }), (e) => e instanceof TaskNotFoundError);
await assert.rejects(client.cancelTask({ id: slow.id }), (e) => e instanceof TaskNotCancelableError);
console.log('ok errors');
