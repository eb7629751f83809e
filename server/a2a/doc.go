// Package a2a is agentscope-go's A2A (Agent2Agent protocol v1.0)
// transport: the JSON-RPC binding and the agent cards over the run
// engine (package engine), and a client of other A2A agents with a tool
// that makes a remote agent a tool of a local one. Only the standard
// library is used: the wire is a handful of JSON objects, typed here.
//
// # Routes
//
//   - GET /.well-known/agent-card.json: the card of the first configured
//     agent, the server's default;
//   - GET /a2a/{agent_id}/.well-known/agent-card.json: the card of that
//     agent (a user's own agent too, with that user's X-User-ID);
//   - POST /a2a/{agent_id}: the JSON-RPC endpoint each card names in its
//     one supportedInterfaces entry ({url, protocolBinding: "JSONRPC",
//     protocolVersion: "1.0"}).
//
// So a client pointed at the server's base URL talks to its first agent,
// and one pointed at {base}/a2a/{agent_id} to that agent (the SDKs look
// for the card under the URL they are given). Every card says
// capabilities.streaming and declares as security schemes what each
// request needs: the X-User-ID header (an API key scheme) and, when the
// server has a token, the bearer token. Auth and isolation are the
// native API's: a request without the token is HTTP 401 (the cards
// included), a JSON-RPC request without X-User-ID is HTTP 401 too, a
// user sees only their own contexts and tasks (another user's is
// TaskNotFound, as an unknown one), and a body over the limit is 413.
//
// # Methods
//
// SendMessage, SendStreamingMessage, GetTask, CancelTask and
// SubscribeToTask, with the header A2A-Version: 1.0 (or the A2A-Version
// query parameter); another version, or none (which means 0.3), is
// VersionNotSupported (-32009). ListTasks and GetExtendedAgentCard are
// UnsupportedOperation (-32004), the push notification methods
// PushNotificationNotSupported (-32003), anything else MethodNotFound.
//
// # Tasks are replies
//
// A context is a session (contextId = session_id: the native API sees
// the same conversation); a message without contextId starts a session.
// A task is one reply of the agent: its id is the session id and the log
// sequence of the reply's first REPLY_START ("<session_id>-<seq>"), so a
// task is found from its id alone, in the log, with no table of its own,
// and the reply's events run from there to its REPLY_END. The task's
// metadata.agentscope names the session and the reply id (the message id
// in GET /sessions/{id}/messages).
//
//   - working: the reply runs;
//   - input required: the reply is parked on tool calls that need the
//     user's confirmation or a result the client computes. The status
//     message says what it waits for in a text part, and a data part
//     {"pendingToolCalls": [{toolCallId, name, input, awaiting
//     ("confirmation" or "result"), suggestedRules}]} says it for a
//     program;
//   - completed: REPLY_END completed; failed: an error, or the reply ran
//     out of iterations (the status message says which); canceled: it
//     was interrupted (CancelTask, or the native interrupt).
//
// Each text or data block of the reply is an artifact named by the
// block's id; a stream sends a text block's deltas as artifact updates
// (append after the first, lastChunk at the block's end). A stream starts
// with the Task and ends after the status update that parks or ends the
// task. SubscribeToTask on an input-required task follows the run its
// answer starts. CancelTask answers once the interrupted reply has ended
// (at most 30 s), so its task is canceled; a task that is over is
// TaskNotCancelable (-32002).
//
// # Answering an input-required task
//
// The next message on the task (its taskId; contextId may be omitted)
// resumes the parked reply:
//
//   - to a confirmation, a text part "yes" (also y, ok, allow, approve)
//     allows every pending call, "always" allows them and keeps their
//     suggested rules, "no" (n, deny, reject) denies them; or a data part
//     {"confirmed": true|false, "applySuggestedRules": bool} for all of
//     them, or {"confirmations": [{"toolCallId", "confirmed",
//     "applySuggestedRules"?, "input"?}]} per call (input replaces the
//     call's arguments);
//   - to calls the client runs, a data part {"results": [{"toolCallId",
//     "output", "isError"?}]}, or for a single pending call its result as
//     a text part;
//   - either way, a data part holding the native USER_CONFIRM_RESULT or
//     EXTERNAL_EXECUTION_RESULT event.
//
// Anything else is InvalidParams (-32602) and changes nothing; so is a
// message to a context with an input-required task that does not name
// the task (UnsupportedOperation, -32004), and one to a task that is
// over or working (UnsupportedOperation).
//
// # Errors
//
// JSON-RPC errors are answered with HTTP 200, as the A2A SDKs do, except
// where HTTP itself has the answer: 401 (token, X-User-ID; code -32000,
// the one code of the implementation-defined range A2A leaves free), 413
// (the body limit), 404 (no such agent), 429 and 503 (the engine's
// bounds, shutting down), 500 (internal). A body that is not JSON (or
// not UTF-8) is -32700, a batch, a notification or a request that is not
// JSON-RPC 2.0 -32600, params of the wrong shape -32602, an unknown or
// foreign task -32001. The engine's errors map as the native API's do:
// an input the parked reply refuses is -32602, a busy session -32004.
package a2a
