// Package agui translates between agentscope-go's native events and AG-UI
// (the Agent User Interaction Protocol, @ag-ui/core 1.0), as pure
// functions and per-stream state: no HTTP, no store, nothing but the core
// module's events, blocks and messages. The transports of package server
// frame what it writes (SSE) and deliver what it reads to the run engine.
//
// Every AG-UI event is written as one compact JSON object followed by
// '\n', appended to a caller's buffer, in camelCase, with a fixed key
// order and no null: an optional member that has no value is left out, as
// the reference writes them (pydantic's exclude_none) and as
// @ag-ui/client requires (it rejects a null where a member is optional).
// Strings are written in pydantic's spelling, non-ASCII as it is. The
// reference writes its AG-UI events with json.dumps' ", " and ": "
// separators; these are compact, the same JSON values.
//
// # The reference conversion (Converter)
//
// Converter is what GET /sessions/{id}/stream?format=agui sends: the
// conversion the reference's AGUIProtocolMiddleware applies to a native
// stream (AgentScope 2.x, app/middleware/_protocol/_agui.py), one AG-UI
// event per native event:
//
//	REPLY_START                   RUN_STARTED{threadId: session_id, runId: reply_id}
//	REPLY_END                     RUN_FINISHED{threadId, runId} for completed, interrupted and
//	                              error alike; exceed_max_iters: RUN_ERROR{message:
//	                              ExceedMaxItersMessage, code: "exceed_max_iters"}
//	MODEL_CALL_START              STEP_STARTED{stepName: model_name}
//	MODEL_CALL_END                STEP_FINISHED{stepName: the last MODEL_CALL_START's model,
//	                              "model_call" before any}
//	TEXT_BLOCK_START|DELTA|END    TEXT_MESSAGE_START{messageId: block_id, role: "assistant"},
//	                              TEXT_MESSAGE_CONTENT{messageId, delta}, TEXT_MESSAGE_END{messageId}
//	THINKING_BLOCK_START|DELTA|END REASONING_MESSAGE_START{messageId, role: "reasoning"},
//	                              REASONING_MESSAGE_CONTENT, REASONING_MESSAGE_END; no
//	                              REASONING_START/END around them, as the reference
//	TOOL_CALL_START|DELTA|END     TOOL_CALL_START{toolCallId, toolCallName, parentMessageId:
//	                              reply_id}, TOOL_CALL_ARGS{toolCallId, delta}, TOOL_CALL_END
//	TOOL_RESULT_END               TOOL_CALL_RESULT{messageId: reply_id, toolCallId, content: the
//	                              result's TOOL_RESULT_TEXT_DELTAs joined, or its state when
//	                              they are empty}
//	TOOL_RESULT_START, _TEXT_DELTA, _DATA_DELTA, DATA_BLOCK_*, EXCEED_MAX_ITERS,
//	REQUIRE_USER_CONFIRM, REQUIRE_EXTERNAL_EXECUTION, USER_CONFIRM_RESULT,
//	EXTERNAL_EXECUTION_RESULT     CUSTOM{name: the type in snake_case, value: the event}
//	HINT_BLOCK, USER_INTERRUPT, CUSTOM
//	                              CUSTOM{name: "unknown", value: the event}: the reference has
//	                              no case for them and its fallback names them so
//
// A CUSTOM's value is the native event as the reference's
// model_dump(exclude_none=True) gives it: its JSON with the null members
// of its models (and of the tool calls, results, rules and sources nested
// in it) left out, but the dicts (metadata, a CUSTOM's value) as they are,
// since pydantic applies exclude_none to model fields only.
//
// The reference keeps the last model name and the tool results' text in
// its middleware, which every stream of the process shares (its code says
// so); a Converter is one stream's, so two streams cannot mix their
// results. AppendChunk rewrites chunks of an SSE body as the middleware
// does (data: lines converted, their LF or CRLF endings kept; other lines,
// heartbeats and what is not an event passed through; a bare event
// converted to its JSON and a newline).
//
// # The AG-UI 1.0 run (Run)
//
// Run is what POST /agui/{agent_id} streams: one AG-UI run per request,
// for one run of a reply (a new reply, or a parked reply's continuation:
// the resume event, the REPLY_START the service sends again, the rest),
// which @ag-ui/client's HttpAgent accepts as it stands: its schemas and
// its verifyEvents, which rejects a run that starts twice, an event after
// the run's end, a content or end for a lane that is not open, a
// RUN_FINISHED while a message, tool call or step is open, and a
// STEP_FINISHED whose name is not the open step's. The mapping follows
// the reference's, with these changes:
//
//   - RUN_STARTED{threadId, runId} comes first, before the first event's
//     own translation (or at Start), with the ids the transport passes
//     (the session and the request's runId); a continuation's REPLY_START
//     adds nothing.
//   - Lanes are tracked: a delta for a text or reasoning message that is
//     not open opens it; an end or a tool call's arguments for a lane that
//     is not open are dropped; a MODEL_CALL_START while a step is open
//     finishes it; STEP_FINISHED names the open step; whatever is open when
//     the run ends is closed, messages and calls before their step.
//   - A tool call's parentMessageId is the id of its step's first text
//     message, or, when the step has no text before its first call, that
//     call's id, shared by the step's later calls: each model turn is one
//     assistant message holding its calls, in order (the reference's
//     reply_id puts every call of the reply into one message, and collides
//     with its results' messageId).
//   - TOOL_CALL_RESULT{messageId: "<tool_call_id>-result", toolCallId,
//     content, role: "tool"}: a message id of the result's own. content is
//     the result's text, or its state when it has none, as the reference;
//     data deltas reach the client as CUSTOM events only.
//   - REPLY_END completed: RUN_FINISHED{outcome: {type: "success"}};
//     interrupted: RUN_FINISHED{outcome: {type: "cancelled"}}; error:
//     RUN_ERROR{message, code: the ErrorInfo's type ("unknown" without
//     one)}; exceed_max_iters: RUN_ERROR, as the reference.
//   - REQUIRE_USER_CONFIRM and REQUIRE_EXTERNAL_EXECUTION stay CUSTOM events
//     (for parity) and record their calls as pending; the run ends when the
//     caller calls Finish (a parked reply has no closing event, and one park
//     may hold both kinds), with RUN_FINISHED{outcome: {type: "interrupt",
//     interrupts}}, one interrupt per pending call:
//     {id: "confirm:<tool_call_id>" or "external:<tool_call_id>", reason:
//     ReasonConfirm ("tool_call", AG-UI's core reason for a call awaiting a
//     decision) or ReasonExternal ("agentscope:external_execution"),
//     message, toolCallId, responseSchema (what the resume's payload may
//     hold), metadata: {replyId, toolName, toolInput, and for a
//     confirmation suggestedRules: [{toolName, ruleContent?, behavior,
//     source}]}}. The kind is in the id because one call can park twice
//     (confirmed, then executed outside): a resume replayed from the first
//     park then cannot answer the second. Finish with nothing pending is
//     RUN_ERROR{code: IncompleteCode}.
//   - A native CUSTOM is CUSTOM{name, value} with its own name and value;
//     every other event is CUSTOM{name: its type in snake_case, value: the
//     event}, as in the reference.
//   - Timestamps are not written: the native created_at is local time
//     without a zone, which AG-UI's epoch milliseconds cannot state.
//     Reasoning messages come without REASONING_START/END, as the
//     reference's.
//
// # The input side
//
// ParseRunAgentInput reads a request body as @ag-ui/core's
// RunAgentInputSchema defines it, strictly (see its comment): a missing or
// mistyped member, a null where the schema gives a type, an unknown role,
// part or source type, a status other than resolved or cancelled,
// invalid UTF-8 are each an *InputError naming the member's path. Members
// it does not know are ignored: AG-UI's objects are open.
//
// The new input of a request (NewUserMessages, NewInput): AG-UI clients
// send the thread's whole history every time, their own messages and the
// ones they built from the agent's events, so the input is the user
// messages after the last message of the agent's (assistant, tool,
// reasoning or activity) whose ids the session does not hold yet, each id
// once. The position rule drops the history a client replays; the id rule
// drops what the session already has when the client retries a request,
// or keeps no agent messages and so sends all its user messages again.
// System and developer messages are never input (the agent's instructions
// are its configuration). Each becomes a native user Msg (Message.UserMsg)
// with the client's id, so the session knows it next time: a string is a
// text block; text parts are text blocks; media parts are data blocks, a
// base64 source (checked to decode) or a URL source (absolute, its media
// type from mimeType, else the URL's extension, else the part's kind as
// "image/*", or application/octet-stream for a document). A provider's
// file id has no native form: an *InputError.
//
// A resume (ResumeEvents) is given the events the reply parked on, which
// the caller recorded; it must answer each interrupt Run announced for
// them once, and nothing else, as AG-UI's contract asks (*ResumeError:
// ErrUnknownInterrupt, ErrUnanswered, ErrAnsweredTwice). It gives a
// USER_CONFIRM_RESULT for the confirmations and an
// EXTERNAL_EXECUTION_RESULT for the external executions, in the parked
// events' order:
//
//   - a confirmation is approved when resolved, unless its payload says
//     {"approved": false} (AG-UI's word) or {"confirmed": false} (the
//     native one); cancelled denies it. An approval runs the parked call,
//     or, edited, with payload.editedArgs (an object, AG-UI's full
//     replacement) or payload.input (the native input: a string, taken as
//     it is, or an object); an object is compacted, its members' order
//     kept. payload.rules is true for the call's suggested rules, or a
//     list of rules to add (ParseRules);
//   - an external execution resolved has payload.result (a string, or any
//     JSON as its text) or payload.content (a string or content parts, as
//     in a user message), payload.isError true for a failed execution, and
//     payload.metadata for the result's metadata (the entry's own metadata
//     is AG-UI's envelope, not the result's); cancelled answers it as a
//     call the user interrupted (state interrupted, the reference's text
//     for it).
//
// A payload of the wrong shape is an *InputError under resume[i].payload.
package agui
