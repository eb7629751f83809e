// Package mockllm gives end-to-end tests a real third-party
// OpenAI-compatible server, @dwmkerr/mock-llm (v0.1.29, from npm), loaded
// with the rules in mock-llm.yaml: an echo of the last message (streamed on
// request), a scripted get_weather tool call for a user turn containing
// "agentscope-e2e weather", and an answer built from the tool result.
//
// CI starts the server with scripts/mock-llm.sh and sets
// AGENTSCOPE_MOCK_LLM_URL; a test then fails, never skips, when that server
// cannot be reached. Without the variable the helper starts a private
// instance for the test (node and npm required), so the tests run the same
// way on a workstation.
package mockllm
