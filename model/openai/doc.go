// Package openai adapts the two OpenAI wire protocols to model.ChatModel:
// Chat Completions (New), with provider profiles for OpenAI, DeepSeek,
// Moonshot/Kimi, DashScope compatible mode, xAI and local OpenAI-compatible
// servers (vLLM, llama.cpp, LM Studio, Ollama /v1), and the Responses API
// (NewResponses).
//
// Both are hand-written net/http clients over the shared SSE reader in
// model/internal/transport rather than the openai-go SDK, for the reasons in
// the models spec (§0, §4):
//
//   - the compatible servers are the point of the Chat adapter, and their
//     deltas differ from OpenAI's (reasoning_content / reasoning, chunk ids
//     that change mid-stream, whole-call chunks, usage on the finish chunk,
//     repeated finish_reason): the SDK's typed structs hide those fields and
//     its accumulator rejects real streams (the Kimi recording);
//   - request-side extras (reasoning_content echo, enable_thinking,
//     thinking.type) are plain JSON keys that are easiest to write directly;
//   - the SDK retries on its own and reads OPENAI_BASE_URL and friends from
//     the environment, which fights our single retry layer (before the first
//     byte only) and leaks into tests;
//   - it adds about 23 MB to a binary and decodes a chunk about 6× slower.
//
// A call formats the whole history (text, data, thinking echo per profile,
// tool calls and results split into assistant tool_calls and role:"tool"
// messages, hints as user turns), sends it with retries before the first
// byte, and streams model.Chunk deltas: text and thinking under one
// generated id each per call, tool calls under the provider's call id (the
// Chat wire sends it only on the first fragment of an index, so fragments
// are keyed by index), and the latest usage report.
//
// A stream that ends without a finish_reason and without "data: [DONE]"
// (Chat), or without response.completed (Responses), was cut short: the
// adapter yields a *model.Error of type connection after the parts it did
// receive, rather than passing a truncated reply off as complete.
package openai
