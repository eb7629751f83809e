// Package model defines the streaming chat-model contract the agent loop
// drives, and the provider-neutral pieces around it: requests, tool schemas
// and tool choice, typed errors, and the Accumulator that turns a stream of
// delta chunks into the finished response content.
//
// A ChatModel call is an iter.Seq2[Chunk, error]. Chunks are deltas: each
// Part names a logical block by a key that is stable for the whole call
// (the provider's block index, item id or tool-call id), so the consumer can
// open, grow and close blocks as they arrive. An error yielded before the
// first chunk means the call failed (the agent may retry or fall back); an
// error after it ends the stream. Cancelling ctx ends the stream early, and
// a stream cut short that way must end by yielding an error that wraps
// ctx.Err(): a stream that simply stops is a finished response, so the
// consumer can always tell an interrupted call from a short answer.
//
// Every adapter bounds its HTTP calls with Timeouts (connecting, the wait
// for the response headers, the silence between chunks; WithTimeouts in
// each adapter, provider.WithTimeouts for any URI), so a server that
// accepts a call and never answers ends it with a connection error, and
// logs its retries and notices through the logger given to its WithLogger.
// An *Error's Attempts counts the requests made, retries included.
//
// Provider adapters live in sub-packages (model/openai, model/anthropic,
// model/gemini, model/ollama); model/scripted plays scripted turns for tests
// and the demo.
package model
