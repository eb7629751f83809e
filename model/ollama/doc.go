// Package ollama is the model.ChatModel for Ollama's native chat API
// (POST /api/chat, streamed as NDJSON), spoken over plain net/http.
//
// # Why no SDK
//
// Ollama's Go client lives in the server's own module: importing its api
// package downloads the whole server (a 57 MB module) and ssh-key signing
// for ollama.com, all for a twenty-line decode loop over one JSON object
// per line. See models.md §4.
//
// # Formatting
//
// Message content is a string (text blocks joined with "\n") and images go
// in "images" as base64; other media, and images by URL, become a note in
// the text (Ollama takes inline images only). Thinking is not echoed, as in
// the reference. All tool calls of one turn go on one assistant message,
// with their arguments as an object (repaired when a stream cut them off);
// each result follows as {"role":"tool","tool_name",…}: Ollama correlates
// results by tool name and order, so no ids are sent. Media a tool returned
// follows the results in a user message, and so does a hint that arrived
// while calls were unanswered (tool messages must follow their calls).
// tool_choice is not supported by
// the API: a forced or "none" choice is ignored with a warning (a choice's
// Tools list still narrows the tools sent). Request.Extra entries are
// top-level request fields by the API's own names, except "options", whose
// entries merge into the model's options (num_ctx, seed, temperature, …).
//
// # Streaming
//
// message.thinking and message.content fragments become thinking and text
// parts, one block per uninterrupted run. Tool calls arrive whole, with
// arguments as an object; each gets the id Ollama sent, or a generated one
// that is unique for the conversation (the reference's "<index>_<name>"
// collides when two chunks each carry one call to the same tool). Token
// counts come on the done:true object (prompt_eval_count in,
// eval_count out). An {"error":…} line ends the stream with a typed
// *model.Error; a stream that ends without done:true yields a *model.Error
// of type connection wrapping io.ErrUnexpectedEOF after the parts that
// arrived.
package ollama
