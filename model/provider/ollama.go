package provider

import (
	"net"
	"strings"

	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/ollama"
)

func init() {
	Register("ollama", func(s Spec) (model.ChatModel, error) {
		opts := []ollama.Option{}
		base := s.BaseURL
		if base == "" {
			base = ollamaHost(s.Env("OLLAMA_HOST"))
		}
		if base != "" {
			opts = append(opts, ollama.WithBaseURL(base))
		}
		// ollama.com's hosted API takes a bearer key; a local server needs none.
		if key, _ := s.Key(false, "OLLAMA_API_KEY"); key != "" {
			opts = append(opts, ollama.WithAPIKey(key))
		}
		if s.HTTPClient != nil {
			opts = append(opts, ollama.WithHTTPClient(s.HTTPClient))
		}
		return ollama.New(s.Model, opts...), nil
	})
}

// ollamaHost turns OLLAMA_HOST ("host", "host:port", "http://host:port")
// into a base URL, as the ollama CLI reads it.
func ollamaHost(h string) string {
	h = strings.TrimSpace(h)
	if h == "" {
		return ""
	}
	scheme := "http"
	if s, rest, ok := strings.Cut(h, "://"); ok {
		scheme, h = s, rest
	}
	h = strings.TrimRight(h, "/")
	if _, _, err := net.SplitHostPort(h); err != nil {
		h = net.JoinHostPort(strings.Trim(h, "[]"), "11434")
	}
	return scheme + "://" + h
}
