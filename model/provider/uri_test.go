package provider_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/model/provider"
)

// A base URL given without its scheme is named as such, with the URI the
// user meant, instead of becoming part of the model name.
func TestParseBaseURLWithoutScheme(t *testing.T) {
	for uri, want := range map[string]string{
		"openai-compatible:foo@localhost:1":  "e.g. openai-compatible:foo@http://localhost:1",
		"ollama:qwen3:8b@127.0.0.1:11434":    "e.g. ollama:qwen3:8b@http://127.0.0.1:11434",
		"vllm:org/m@10.0.0.2:8000/v1":        "e.g. vllm:org/m@http://10.0.0.2:8000/v1",
		"openai-compatible:m@ftp://h:1/v1":   "e.g. openai-compatible:m@http://h:1/v1",
		"openai-compatible:foo@":             "e.g. openai-compatible:foo@http://localhost:8000/v1",
		"openai-compatible:foo@localhost/v1": "e.g. openai-compatible:foo@http://localhost/v1",
	} {
		_, err := provider.Parse(uri)
		if !errors.Is(err, provider.ErrBadURI) || !strings.Contains(err.Error(), "must start with http:// or https://") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a hint %q", uri, err, want)
		}
	}
	// An '@' inside a model name is not a base URL.
	for uri, model := range map[string]string{
		"anthropic:claude-3-5-sonnet@20240620": "claude-3-5-sonnet@20240620",
		"openai:team@proj/model":               "team@proj/model",
	} {
		if s, err := provider.Parse(uri); err != nil || s.Model != model || s.BaseURL != "" {
			t.Errorf("%s: got %+v, %v", uri, s, err)
		}
	}
	_, err := provider.New("openai-compatible:qwen3", env())
	if msg := err.Error(); !strings.Contains(msg, "openai-compatible:qwen3@http://localhost:8000/v1") || !strings.Contains(msg, "--base-url") {
		t.Errorf("no base URL: %v", err)
	}
}
