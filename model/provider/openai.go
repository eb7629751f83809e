package provider

import (
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/openai"
)

// The OpenAI family: one Chat Completions adapter with a profile per
// provider, plus the Responses API.
func init() {
	chat := func(p openai.Profile, required bool, envs ...string) Factory {
		return func(s Spec) (model.ChatModel, error) {
			key, err := s.Key(required, envs...)
			if err != nil {
				return nil, err
			}
			return openai.New(s.Model, openaiOptions(s, key, p)...), nil
		}
	}
	Register("openai", chat(openai.ProfileOpenAI, true, "OPENAI_API_KEY"))
	Register("openai-responses", func(s Spec) (model.ChatModel, error) {
		key, err := s.Key(true, "OPENAI_API_KEY")
		if err != nil {
			return nil, err
		}
		return openai.NewResponses(s.Model, openaiOptions(s, key, openai.ProfileOpenAI)...), nil
	})
	Register("openai-compatible", func(s Spec) (model.ChatModel, error) {
		if s.BaseURL == "" {
			return nil, setupError(errorf(ErrBadURI, "openai-compatible needs the server's base URL: openai-compatible:%s@http://HOST:PORT/v1 (e.g. openai-compatible:%s@http://localhost:8000/v1), or --base-url URL", s.Model, s.Model))
		}
		// A real OpenAI key is never sent to an arbitrary server.
		key, _ := s.Key(false, "OPENAI_COMPATIBLE_API_KEY")
		return openai.New(s.Model, openaiOptions(s, key, openai.ProfileCompatible)...), nil
	})
	local := func(name, base string, p openai.Profile) {
		p.Name, p.BaseURL = name, base
		Register(name, func(s Spec) (model.ChatModel, error) {
			key, _ := s.Key(false, "OPENAI_COMPATIBLE_API_KEY")
			return openai.New(s.Model, openaiOptions(s, key, p)...), nil
		})
	}
	local("vllm", "http://localhost:8000/v1", openai.ProfileCompatible)
	local("llamacpp", "http://localhost:8080/v1", openai.ProfileCompatible)
	local("lmstudio", "http://localhost:1234/v1", openai.ProfileCompatible)
	local("ollama-openai", "http://localhost:11434/v1", openai.ProfileOllama)
	for _, h := range []struct {
		names   []string
		profile openai.Profile
		env     string
	}{
		{[]string{"deepseek"}, openai.ProfileDeepSeek, "DEEPSEEK_API_KEY"},
		{[]string{"moonshot", "kimi"}, openai.ProfileMoonshot, "MOONSHOT_API_KEY"},
		{[]string{"dashscope", "qwen"}, openai.ProfileDashScope, "DASHSCOPE_API_KEY"},
		{[]string{"xai", "grok"}, openai.ProfileXAI, "XAI_API_KEY"},
	} {
		for _, n := range h.names {
			Register(n, chat(h.profile, true, h.env))
		}
	}
}

func openaiOptions(s Spec, key string, p openai.Profile) []openai.Option {
	opts := []openai.Option{openai.WithProfile(p), openai.WithAPIKey(key)}
	if s.BaseURL != "" {
		opts = append(opts, openai.WithBaseURL(s.BaseURL))
	}
	if s.HTTPClient != nil {
		opts = append(opts, openai.WithHTTPClient(s.HTTPClient))
	}
	return append(opts, openai.WithTimeouts(s.Timeouts), openai.WithLogger(s.Logger))
}
