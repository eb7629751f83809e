// Package childenv is the one home of the environment that the programs
// agentscope starts get: the Bash tool's commands (tool/builtin) and stdio
// MCP servers (mcp). Neither inherits the parent's environment, which holds
// the provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, …) and whatever
// else the user exported; a child gets the few variables a program needs
// to behave normally, as the official TypeScript MCP SDK's
// getDefaultEnvironment gives a stdio server, plus what its configuration
// names explicitly.
package childenv
