// agui-check.mjs checks AG-UI events with the real @ag-ui/core and
// @ag-ui/client (pinned in package.json), so that what agentscope-go
// writes is held to what those packages accept rather than to our reading
// of them.
//
//   node agui-check.mjs [--schema] [FILE]
//       FILE (default: stdin) holds one stream of AG-UI events, one JSON
//       object a line. Each event must pass @ag-ui/core's EventSchemas.
//       Without --schema the stream is also one run: it must pass the
//       client's verifyEvents, and an HttpAgent must run it to the end
//       (served as SSE from 127.0.0.1) with nothing thrown or warned.
//
//   node agui-check.mjs --plan PLAN.json
//       PLAN: {"streams": [{"name", "lines": [...]}],
//              "threads": [{"name", "threadId", "runs": [{"runId",
//                "lines": [...], "addMessages": [...], "resume": [...]}]}]}
//       Streams get the schema check. Each thread is one HttpAgent; its
//       runs go through runAgent in order, after addMessages, with resume
//       when given, each answered with that run's lines.
//
// It prints a JSON report (per stream and run: the errors, the client's
// warnings, and for a run the request the client sent, the RUN_ERRORs it
// delivered, its new messages and pending interrupts) and exits 1 when
// anything failed.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { EventSchemas } from '@ag-ui/core/schemas';
import { HttpAgent, verifyEvents } from '@ag-ui/client';

// verifyEvents is an rxjs operator: feed it an Observable of the client's
// own rxjs copy.
const require = createRequire(import.meta.url);
const { from, lastValueFrom, toArray } = createRequire(require.resolve('@ag-ui/client'))('rxjs');

function parseLines(lines, errors) {
  const events = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let obj;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      errors.push(`line ${i + 1}: not JSON: ${e.message}`);
      return;
    }
    const r = EventSchemas.safeParse(obj);
    if (!r.success) {
      errors.push(`line ${i + 1}: ${obj?.type}: ${JSON.stringify(r.error.issues)}`);
    } else if (!sameJSON(r.data, obj)) {
      errors.push(`line ${i + 1}: the schema changed the event: ${JSON.stringify(obj)} -> ${JSON.stringify(r.data)}`);
    }
    events.push(obj);
  });
  return events;
}

function sameJSON(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJSON(a[k], b[k]));
}

function checkStream(s) {
  const errors = [];
  const events = parseLines(s.lines, errors);
  return { name: s.name, events: events.length, errors };
}

// The client's warnings are failures too: it warns when it drops or
// repairs what it was sent.
const warnings = [];
for (const level of ['warn', 'error']) {
  console[level] = (...args) => warnings.push(args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
}

async function runThread(th) {
  let current = [];
  let request = null;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      request = JSON.parse(body);
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.end(current.filter((l) => l.trim() !== '').map((l) => `data: ${l}\n\n`).join(''));
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const agent = new HttpAgent({ url: `http://127.0.0.1:${server.address().port}/agui/agent`, threadId: th.threadId });
  const runErrors = [];
  agent.subscribe({ onRunErrorEvent: ({ event }) => void runErrors.push({ message: event.message, code: event.code }) });
  const runs = [];
  try {
    for (const run of th.runs) {
      const errors = [];
      const events = parseLines(run.lines, errors);
      try {
        await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
      } catch (e) {
        errors.push(`verifyEvents: ${e.message}`);
      }
      for (const m of run.addMessages ?? []) agent.addMessage(m);
      current = run.lines;
      request = null;
      runErrors.length = 0;
      warnings.length = 0;
      let newMessages = [];
      try {
        const params = { runId: run.runId };
        if (run.resume) params.resume = run.resume;
        const r = await agent.runAgent(params);
        newMessages = r.newMessages;
      } catch (e) {
        errors.push(`runAgent: ${e.message}`);
      }
      runs.push({
        runId: run.runId, events: events.length, errors, warnings: [...warnings], request,
        runErrors: [...runErrors], newMessages, pendingInterrupts: agent.pendingInterrupts,
      });
    }
  } finally {
    server.close();
  }
  return { name: th.name, runs };
}

const args = process.argv.slice(2);
let report;
if (args[0] === '--plan') {
  const plan = JSON.parse(readFileSync(args[1], 'utf8'));
  report = { streams: (plan.streams ?? []).map(checkStream), threads: [] };
  for (const th of plan.threads ?? []) report.threads.push(await runThread(th));
} else {
  const schemaOnly = args[0] === '--schema';
  const file = schemaOnly ? args[1] : args[0];
  const lines = readFileSync(file ?? 0, 'utf8').split('\n');
  report = schemaOnly
    ? { streams: [checkStream({ name: file ?? '-', lines })], threads: [] }
    : { streams: [], threads: [await runThread({ name: file ?? '-', threadId: 'thread', runs: [{ runId: 'run', lines }] })] };
}
const failed =
  report.streams.some((s) => s.errors.length > 0) ||
  report.threads.some((t) => t.runs.some((r) => r.errors.length > 0 || r.warnings.length > 0));
// exitCode rather than exit(): a report larger than a pipe's buffer must
// be written out before the process ends.
process.exitCode = failed ? 1 : 0;
process.stdout.write(JSON.stringify(report, null, 1) + '\n');
