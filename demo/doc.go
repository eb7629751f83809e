// Package demo is a keyless stand-in for a real model, with four small
// tools, so the whole runtime — streaming, thinking, tool calls, tool
// results, the permission check and the final answer — can be tried and
// tested without an API key or a network.
//
// The model is rule-based, not scripted: it reads the request like a real
// model would. Asked for arithmetic it thinks aloud and calls the
// "calculate" tool with its arguments streamed in fragments; asked for the
// time it calls "get_time"; asked to wait some seconds ("wait 30
// seconds") it calls "wait", a tool that takes that long, so a reply can
// be interrupted, or its server killed, while a tool runs; asked to save a
// note it calls "save_note" (the one tool that is not read-only, so the
// agent asks the user first); given tool results it answers from them;
// anything else gets a streamed explanation of what it can do. It is what
// `agentscope run --model demo` (and the README's first command) runs.
package demo
