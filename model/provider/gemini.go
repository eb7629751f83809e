package provider

import (
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/gemini"
)

func init() {
	Register("gemini", func(s Spec) (model.ChatModel, error) {
		// GOOGLE_API_KEY first: the google-genai SDKs prefer it when both are set.
		key, err := s.Key(true, "GOOGLE_API_KEY", "GEMINI_API_KEY")
		if err != nil {
			return nil, err
		}
		opts := []gemini.Option{gemini.WithAPIKey(key)}
		if s.BaseURL != "" {
			opts = append(opts, gemini.WithBaseURL(s.BaseURL))
		}
		if s.HTTPClient != nil {
			opts = append(opts, gemini.WithHTTPClient(s.HTTPClient))
		}
		opts = append(opts, gemini.WithTimeouts(s.Timeouts), gemini.WithLogger(s.Logger))
		return gemini.New(s.Model, opts...), nil
	})
}
