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
		opts = append(opts, ollama.WithTimeouts(s.Timeouts), ollama.WithLogger(s.Logger))
		return ollama.New(s.Model, opts...), nil
	})
}

// ollamaHost turns OLLAMA_HOST ("host", "host:port", "http://host:port",
// "https://host/prefix") into a base URL, as the ollama clients read it:
// 11434 is the default port of a bare host only; an explicit http or https
// scheme brings its own (80, 443), and a path prefix is kept.
func ollamaHost(h string) string {
	h = strings.TrimSpace(strings.Trim(strings.TrimSpace(h), `"'`))
	if h == "" {
		return ""
	}
	scheme, port := "http", "11434"
	if s, rest, ok := strings.Cut(h, "://"); ok {
		scheme, h = s, rest
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	hostport, path, _ := strings.Cut(h, "/")
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), port)
	}
	if path = strings.Trim(path, "/"); path != "" {
		return scheme + "://" + hostport + "/" + path
	}
	return scheme + "://" + hostport
}
