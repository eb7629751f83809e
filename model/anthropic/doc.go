// Package anthropic is the model.ChatModel for Anthropic's Messages API
// (POST /v1/messages with "stream": true), spoken over plain net/http.
//
// # Why no SDK
//
// The adapter must key thinking, text and tool blocks by the stream's
// content-block index, carry each thinking block's signature (and redacted
// thinking data) byte-for-byte into the next request, and replace a
// tool_use start block's "input":{} with the streamed JSON. The SDK's typed
// accumulator hides exactly these raw deltas, adds its own retries (which
// would multiply ours) and reads ANTHROPIC_BASE_URL from the environment,
// and pulls OpenTelemetry and a JSON-schema library into every binary. The
// wire is eight event types; a hand-written client is smaller than the glue
// an SDK would need. See models.md §4.
//
// # Formatting
//
// The whole history is formatted on every call: leading system messages
// become the "system" parameter; an assistant Msg that holds a reply's tool
// calls and their results in order is split into alternating turns, with
// every tool_result in a user turn (parallel results together, and always
// before any other user content there); hints become user turns. Thinking
// is echoed only when signed (or redacted): an unsigned block came from
// another provider and would be rejected. Empty text is dropped, an empty
// tool result is sent as "(empty tool output)" and a failed, denied or
// interrupted one is marked is_error; tool-call arguments are sent as an
// object (repaired when a stream cut them off). A forced tool choice
// ("required" or a tool's name) cannot be combined with thinking, so
// thinking is left out of such a call, with a warning. Images (jpeg, png,
// gif, webp) and PDFs go as base64 or URL sources; other media become a
// text note. Request.Extra entries are top-level request fields by the
// API's own names ("temperature", "metadata", "stop_sequences", …) and win
// over the model's options.
//
// # Streaming
//
// Each content block gets one Part ID for the whole call: text and thinking
// blocks a fresh id per block (so several thinking blocks keep separate
// signatures), tool_use blocks their toolu_… id. Usage is reported from
// message_start and every message_delta, cumulatively; input_tokens is the
// uncached part, cache reads and writes map to CacheInputTokens and
// CacheCreationInputTokens. An "error" event ends the stream with a typed
// *model.Error; a stream that ends without message_stop yields a
// *model.Error of type connection wrapping io.ErrUnexpectedEOF after the
// parts that did arrive.
package anthropic
