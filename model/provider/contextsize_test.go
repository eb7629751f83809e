package provider_test

import (
	"testing"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/model/provider"
)

// Every provider's model reports the reference's default context window,
// which the agent's compression threshold is a share of; without it the
// agent would assume 32,768 tokens for every model.
func TestContextSizes(t *testing.T) {
	for uri, want := range map[string]int{
		"openai:gpt-4.1":                        128000,
		"openai-responses:gpt-5":                200000,
		"anthropic:claude-sonnet-4-5":           200000,
		"gemini:gemini-2.5-flash":               1048576,
		"ollama:qwen3":                          32768,
		"ollama-openai:qwen3":                   32768,
		"deepseek:deepseek-chat":                65536,
		"moonshot:kimi-k2":                      131072,
		"dashscope:qwen-plus":                   131072,
		"xai:grok-4":                            131072,
		"openai-compatible:qwen3@http://h:1/v1": 128000,
	} {
		m, err := provider.New(uri, provider.WithAPIKey("k"))
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		s, ok := m.(agent.ContextSizer)
		if !ok {
			t.Errorf("%s: %T has no ContextSize", uri, m)
			continue
		}
		if got := s.ContextSize(); got != want {
			t.Errorf("%s: ContextSize %d, want %d", uri, got, want)
		}
	}
}
