// Package mcp connects an agent to Model Context Protocol servers: each
// connected server becomes a group of ordinary tools (tool.Tool), built on
// the official Go SDK (github.com/modelcontextprotocol/go-sdk). Only
// programs that import this package depend on the SDK.
//
// A server is described by one [Config]: a command (stdio; the child runs
// in its own process group, killed with it when the client closes) or a URL
// (streamable HTTP, or legacy SSE when the path ends in "/sse" or
// "/messages/", as the reference selects it). A stdio child does not
// inherit the parent's environment, where the provider keys are: it gets
// HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_ALL, LC_CTYPE, TZ and
// TMPDIR where set (the official TypeScript SDK's default environment,
// with the locale, the time zone and the temporary directory) and the
// entries of Config.Env, nothing else. [Connect] starts it, performs
// the handshake and lists its tools; [Client.Tools] returns them and
// [Client.Mount] puts them into a toolkit and keeps them current. With
// [Client.Middleware] in the agent's configuration, every model call sees
// the tools as the server has them then: they are listed again before a
// model call when the server announced notifications/tools/list_changed
// or answered a tool call since the last listing (its notification may
// trail the result); when nothing happened, nothing is asked.
//
// The tools follow the reference's MCPTool: the name is
// mcp__{server}__{tool} with every character outside [a-zA-Z0-9_-]
// replaced by "x"; the server's full input schema is kept (and validated
// before each call, like any tool's); the tools are not concurrency-safe;
// a tool whose annotations carry readOnlyHint is read-only and allowed,
// any other asks ("MCP tools must be explicitly allowed by the user."),
// and permission rules name it by its full name, that is by server and
// tool.
//
// Results: text content becomes text, image and audio content base64 data
// blocks keeping their media type, an embedded text resource the
// resource's JSON (as the reference renders it), an embedded blob a data
// block, a resource link a text naming its URI; structuredContent is kept
// in the result's metadata under "structured_content"; isError makes the
// result an error. Progress notifications of a running call stream as text
// deltas before the result.
//
// Failures never hang an agent: a call cancelled by its context sends the
// MCP cancellation notification and is answered interrupted at once; a
// call that outlives Config.CallTimeout is an error result; a server that
// exits or drops the connection turns in-flight and later calls into error
// results ("Error occurred when calling MCP tool: …", the reference's
// text) and is reconnected on the next call, with exponential backoff
// between failed attempts.
//
// The other direction: [NewServer] serves an agent as an MCP server whose
// one tool sends a message to the agent and answers with its reply.
package mcp
