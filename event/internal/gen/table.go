package main

// The 28 events, in the reference's declaration order: the one table that
// Decode, AppendJSON and the rest of each event's methods are generated
// from. Fields are listed in wire order, after id, created_at, metadata and
// type (written by Base).
var events = []event{
	{"ReplyStart", "REPLY_START", "opens a reply: the assistant Msg with id ReplyID is being built.", []field{
		str("SessionID", "session_id"), str("ReplyID", "reply_id"), str("Name", "name"),
		enum("Role", "role", "Role", "RoleAssistant", "Role.Valid", `"" is written as "assistant"`),
	}},
	{"ReplyEnd", "REPLY_END", "closes a reply. A reply parked on a human or an external executor has no REPLY_END yet.", []field{
		str("SessionID", "session_id"), str("ReplyID", "reply_id"),
		enum("FinishedReason", "finished_reason", "ReplyReason", "ReplyCompleted", "ReplyReason.Valid", `"" is written as "completed"`),
		{Go: "Error", JSON: "error", Kind: kError, Doc: "nil = null"},
	}},
	{"ModelCallStart", "MODEL_CALL_START", "announces a call to the model.", []field{
		str("ReplyID", "reply_id"), str("ModelName", "model_name"),
	}},
	{"ModelCallEnd", "MODEL_CALL_END", "reports a finished model call and its token usage.", []field{
		str("ReplyID", "reply_id"),
		{Go: "InputTokens", JSON: "input_tokens", Kind: kInt, Required: true},
		{Go: "OutputTokens", JSON: "output_tokens", Kind: kInt, Required: true},
		{Go: "CacheInputTokens", JSON: "cache_input_tokens", Kind: kInt},
		{Go: "CacheCreationInputTokens", JSON: "cache_creation_input_tokens", Kind: kInt},
		enum("FinishedReason", "finished_reason", "ModelReason", "ModelCompleted", "ModelReason.valid", `"" is written as "completed"`),
	}},
	{"TextBlockStart", "TEXT_BLOCK_START", "opens a text block.", blockIDs()},
	{"TextBlockDelta", "TEXT_BLOCK_DELTA", "appends text to an open text block.", blockIDs(str("Delta", "delta"))},
	{"TextBlockEnd", "TEXT_BLOCK_END", "closes a text block.", blockIDs()},
	{"DataBlockStart", "DATA_BLOCK_START", "opens a data block (image, audio…).", blockIDs(str("MediaType", "media_type"))},
	{"DataBlockDelta", "DATA_BLOCK_DELTA", "carries one independently base64-encoded chunk of a data block.",
		blockIDs(str("Data", "data"), str("MediaType", "media_type"))},
	{"DataBlockEnd", "DATA_BLOCK_END", "closes a data block.", blockIDs()},
	{"ThinkingBlockStart", "THINKING_BLOCK_START", "opens a thinking block.", blockIDs()},
	{"ThinkingBlockDelta", "THINKING_BLOCK_DELTA", "appends reasoning text to an open thinking block.", blockIDs(str("Delta", "delta"))},
	{"ThinkingBlockEnd", "THINKING_BLOCK_END", "closes a thinking block.", blockIDs()},
	{"HintBlock", "HINT_BLOCK", "carries a whole hint block (hints are born finished).", blockIDs(
		field{Go: "Source", JSON: "source", Kind: kNull},
		field{Go: "Hint", JSON: "hint", Kind: kBody},
	)},
	{"ToolCallStart", "TOOL_CALL_START", "opens a tool call requested by the model.", callIDs(str("ToolCallName", "tool_call_name"))},
	{"ToolCallDelta", "TOOL_CALL_DELTA", "appends a fragment of a tool call's JSON arguments.", callIDs(str("Delta", "delta"))},
	{"ToolCallEnd", "TOOL_CALL_END", "closes a tool call's arguments.", callIDs()},
	{"ToolResultStart", "TOOL_RESULT_START", "opens the result of a tool call.", callIDs(str("ToolCallName", "tool_call_name"))},
	{"ToolResultTextDelta", "TOOL_RESULT_TEXT_DELTA", "appends text to a tool result.", callIDs(str("Delta", "delta"))},
	{"ToolResultDataDelta", "TOOL_RESULT_DATA_DELTA", "adds a data block to a tool result; exactly one of Data and URL is set (not null).", callIDs(
		field{Go: "BlockID", JSON: "block_id", Kind: kFreshID, Doc: "a fresh id when decoded without one"},
		str("MediaType", "media_type"),
		field{Go: "Data", JSON: "data", Kind: kNull, Doc: "base64 text"},
		field{Go: "URL", JSON: "url", Kind: kNull},
	)},
	{"ToolResultEnd", "TOOL_RESULT_END", "closes a tool result with its final state.", callIDs(
		enum("State", "state", "block.ToolResultState", "", "block.ToolResultState.Valid", ""),
	)},
	{"ExceedMaxIters", "EXCEED_MAX_ITERS", "reports that the reply ran out of reasoning-acting iterations (deprecated upstream, still emitted).", []field{
		str("ReplyID", "reply_id"), str("Name", "name"),
	}},
	{"RequireUserConfirm", "REQUIRE_USER_CONFIRM", "parks the reply until a human confirms the listed tool calls.", []field{
		str("ReplyID", "reply_id"), {Go: "ToolCalls", JSON: "tool_calls", Kind: kCalls},
	}},
	{"RequireExternalExecution", "REQUIRE_EXTERNAL_EXECUTION", "parks the reply until an external executor returns results for the listed tool calls.", []field{
		str("ReplyID", "reply_id"), {Go: "ToolCalls", JSON: "tool_calls", Kind: kCalls},
	}},
	{"UserConfirmResult", "USER_CONFIRM_RESULT", "is an input: a human's answers to REQUIRE_USER_CONFIRM.", []field{
		str("ReplyID", "reply_id"), {Go: "ConfirmResults", JSON: "confirm_results", Kind: kConfirms},
	}},
	{"UserInterrupt", "USER_INTERRUPT", "is an input: the user interrupts a parked reply.", []field{
		str("ReplyID", "reply_id"),
	}},
	{"ExternalExecutionResult", "EXTERNAL_EXECUTION_RESULT", "is an input: results of externally executed tool calls.", []field{
		str("ReplyID", "reply_id"), {Go: "ExecutionResults", JSON: "execution_results", Kind: kResults},
	}},
	{"Custom", "CUSTOM", "is an application event (e.g. \"state_updated\"); it belongs to no reply.", []field{
		str("Name", "name"), {Go: "Value", JSON: "value", Kind: kObject, Doc: "nil is written as {}"},
	}},
}

func str(goName, json string) field { return field{Go: goName, JSON: json, Kind: kString} }

func enum(goName, json, typ, def, valid, doc string) field {
	return field{Go: goName, JSON: json, Kind: kEnum, Type: typ, Default: def, Valid: valid, Doc: doc}
}

func blockIDs(more ...field) []field {
	return append([]field{str("ReplyID", "reply_id"), str("BlockID", "block_id")}, more...)
}

func callIDs(more ...field) []field {
	return append([]field{str("ReplyID", "reply_id"), str("ToolCallID", "tool_call_id")}, more...)
}
