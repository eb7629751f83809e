// Package scripted is a deterministic model.ChatModel that plays a script
// of turns: each model call consumes the next turn and streams its chunks
// (text, thinking, tool-call and data fragments with usage), or fails, or
// pauses at a cancellable suspension point. Tests, benchmarks, the
// conformance runner and the demo use it instead of a provider.
//
// Scripts are written in Go ([Stream], [Reply], [Text], [ToolCall] …) or
// parsed from the conformance scenario format ([Parse]). Blocks without an
// explicit id get the ids the reference harness gives them,
// "t<turn>-<kind>-<index>", so traces recorded from the reference match.
// A Model can record the requests it receives ([WithRecording]).
package scripted
