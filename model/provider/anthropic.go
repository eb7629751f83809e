package provider

import (
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/anthropic"
)

func init() {
	Register("anthropic", func(s Spec) (model.ChatModel, error) {
		key, err := s.Key(true, "ANTHROPIC_API_KEY")
		if err != nil {
			return nil, err
		}
		opts := []anthropic.Option{anthropic.WithAPIKey(key)}
		if s.BaseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(s.BaseURL))
		}
		if s.HTTPClient != nil {
			opts = append(opts, anthropic.WithHTTPClient(s.HTTPClient))
		}
		opts = append(opts, anthropic.WithTimeouts(s.Timeouts), anthropic.WithLogger(s.Logger))
		return anthropic.New(s.Model, opts...), nil
	})
}
