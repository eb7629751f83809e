// Package gemini is the model.ChatModel for the Gemini Developer API
// (POST /v1beta/models/{model}:streamGenerateContent?alt=sse with an
// x-goog-api-key), spoken over plain net/http.
//
// # Why no SDK
//
// google.golang.org/genai pulls grpc, protobuf and cloud auth (about 170
// third-party packages) into every binary, retries on its own (400s
// included) and continues streams automatically underneath our single
// retry policy, and reads GOOGLE_API_KEY / GEMINI_API_KEY and Vertex
// settings from the environment. What this adapter needs — thoughtSignature
// as opaque base64 echoed on the part it came with, server or synthesized
// call ids, a clean systemInstruction — is a few JSON shapes. Vertex AI
// (ADC auth, regional endpoints) is where an SDK would earn its weight; it
// belongs in a separate package. See models.md §4.
//
// # Formatting
//
// Leading system messages become systemInstruction; assistant turns are
// role "model", everything else "user"; consecutive turns of one role form
// one content, except that function responses always have a content of
// their own. A reply Msg holding tool calls and
// their results is split into a model content (text, thought parts, every
// functionCall with its id and thoughtSignature) followed by ONE user
// content with all the functionResponse parts (separate contents are a
// 400), then a user content presenting any media the tools returned; a
// hint that arrived while calls were unanswered waits until their
// responses are in.
// Function responses are {"result": text}, or {"error": text} for a failed,
// denied or interrupted call. Tool schemas are reduced to the subset of
// JSON Schema the API accepts ($ref inlined, types upper-cased, anyOf-null
// and type lists turned into nullable, const into enum, unknown keywords
// dropped).
//
// Request.Extra entries use the API's own names: generationConfig fields
// ("temperature", "stopSequences", "responseMimeType", …) go into
// generationConfig, anything else ("safetySettings", "cachedContent", …) at
// the top level; they win over the model's options.
//
// thinkingConfig is sent only when configured (WithThinkingBudget,
// WithThinkingLevel): a budget of 0 is rejected by 2.5-pro and a
// thinkingLevel by 2.5 models, so nothing is assumed.
//
// # Thought signatures
//
// Gemini 3 rejects a history whose function calls lack the thoughtSignature
// they came with. A signature on a functionCall part travels as the
// "thought_signature" extra of the tool-call Part (kept in memory by
// block.ToolCall.Extra); one on a thought part stays on that thinking
// block. A signature on a non-thought text part — Gemini 3 ends text
// answers with an empty text part carrying one — becomes an empty thinking
// block whose only content is the extra: thinking blocks are where the
// reference keeps provider extras, and their JSON persists them. Each is
// echoed on a part of its own, in place. WithSignatureFallback supplies the
// value Google documents for calls whose signature was lost (a history
// restored from JSON, or calls from another model).
//
// # Streaming
//
// Each chunk carries complete parts. Consecutive text parts form one text
// block, consecutive thought parts one thinking block; a function call,
// data, or a signature closes the open block. Function calls use the
// server's id (Gemini 3) or a generated one (2.5 sends none). usageMetadata
// repeats cumulatively in every chunk and the last one wins: input is
// promptTokenCount, output totalTokenCount − promptTokenCount (thoughts
// included), cache reads cachedContentTokenCount. A stream that ends before
// any candidate carried a finishReason yields a *model.Error of type
// connection wrapping io.ErrUnexpectedEOF after the parts that arrived.
package gemini
