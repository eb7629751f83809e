// An A2A agent on @a2a-js/sdk's own server (DefaultRequestHandler,
// InMemoryTaskStore, express), for our A2A client tool to call: a message
// starting "task:" gets a task (submitted, working, an artifact,
// completed), any other a direct message "echo: <text>". It listens on
// 127.0.0.1 (PORT) and prints "listening <url>" once it does. PEERS is the
// npm peers' folder.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const peers = process.env.PEERS;
const sdk = (p) => import(pathToFileURL(path.join(peers, 'node_modules/@a2a-js/sdk/dist', p)).href);
const { Role, TaskState, A2A_PROTOCOL_VERSION } = await sdk('index.js');
const { DefaultRequestHandler, InMemoryTaskStore, AgentEvent } = await sdk('server/index.js');
const { agentCardHandler, jsonRpcHandler, UserBuilder } = await sdk('server/express/index.js');
const express = createRequire(path.join(peers, 'package.json'))('express');

const port = Number(process.env.PORT);
const url = `http://127.0.0.1:${port}/`;
const card = {
  name: 'Echo', description: 'Says back what it is told.',
  supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
  version: '1.0.0', capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text'], defaultOutputModes: ['text'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Echoes.', tags: ['echo'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};
const part = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const executor = {
  async execute(ctx, bus) {
    const said = ctx.userMessage.parts.map((p) => p.content?.value ?? '').join('');
    const { taskId, contextId } = ctx;
    if (!said.startsWith('task:')) {
      bus.publish(AgentEvent.message({ messageId: crypto.randomUUID(), role: Role.ROLE_AGENT, parts: [part(`echo: ${said}`)],
        contextId, taskId: '', extensions: [], metadata: {}, referenceTaskIds: [] }));
      bus.finished();
      return;
    }
    const status = (state) => AgentEvent.statusUpdate({ taskId, contextId, status: { state, timestamp: new Date().toISOString(), message: undefined }, metadata: {} });
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString() },
      artifacts: [], history: [ctx.userMessage], metadata: {} }));
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId: crypto.randomUUID(), name: 'Result', description: '', parts: [part(`done: ${said.slice(5).trim()}`)], metadata: undefined, extensions: [] } }));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  },
  async cancelTask() {},
};
const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
app.listen(port, '127.0.0.1', (err) => {
  if (err) throw err;
  console.log(`listening ${url}`);
});
