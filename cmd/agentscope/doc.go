// Command agentscope is the agentscope-go command line: one binary, one
// subcommand per job. `agentscope help` lists them and `agentscope help
// NAME` shows one's flags.
//
//	agentscope run --model URI PROMPT     one agent reply, streamed (demo, openai:…, anthropic:…, gemini:…, ollama:…)
//	agentscope serve [--addr --db --model]  serve agents over HTTP + SSE with durable sessions (the demo agent without --model)
//	agentscope mcp [--http ADDR]         serve an agent as an MCP server (stdio, or streamable HTTP)
//	agentscope fold < events.jsonl       fold one reply's events into its Msg
//	agentscope conformance PATH...       run golden conformance traces against the engine
//	agentscope version                   the build's version (also --version)
//
// Flags may come before or after a command's arguments; "--" ends them.
//
// run and serve export the agents' OpenTelemetry spans with OTLP over HTTP
// when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set (otel.go), and send nothing otherwise.
//
// Each subcommand lives in its own file and registers itself from an init
// function, so adding one never touches another's file:
//
//	func init() {
//		register("NAME", command{Summary: "one line for help", Usage: "[flags] ARGS", Run: runNAME})
//	}
//
// runNAME parses its flags with inv.Flags and parseFlags (which answer -h
// and accept flags after the arguments),
// reads and writes only through inv so that tests can run it in process,
// and returns exitOK, exitFailure (the job failed) or exitUsage (bad usage
// or bad input).
package main
