package provider_test

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/model/provider"
)

const chatSSE = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

func env(kv ...string) provider.Option {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return provider.WithEnv(func(k string) string { return m[k] })
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ uri, scheme, model, base string }{
		{"openai:gpt-4.1", "openai", "gpt-4.1", ""},
		{"OpenAI:gpt-4.1", "openai", "gpt-4.1", ""},
		{"ollama:qwen3:8b", "ollama", "qwen3:8b", ""},
		{"openai-compatible:qwen3@http://localhost:8000/v1", "openai-compatible", "qwen3", "http://localhost:8000/v1"},
		{"anthropic:claude@2025@https://proxy.example/v1", "anthropic", "claude@2025", "https://proxy.example/v1"},
		{"vllm:org/model-7b@http://10.0.0.2:8000/v1", "vllm", "org/model-7b", "http://10.0.0.2:8000/v1"},
	} {
		s, err := provider.Parse(tc.uri)
		if err != nil {
			t.Errorf("%s: %v", tc.uri, err)
			continue
		}
		if s.Scheme != tc.scheme || s.Model != tc.model || s.BaseURL != tc.base {
			t.Errorf("%s: got %q %q %q", tc.uri, s.Scheme, s.Model, s.BaseURL)
		}
	}
	for _, bad := range []string{"gpt-4", ":m", "openai:", "openai:@http://x:1/v1", "x:m@http://"} {
		_, err := provider.Parse(bad)
		var me *model.Error
		if !errors.As(err, &me) || me.Type != event.ErrSetup || !errors.Is(err, provider.ErrBadURI) {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

func TestNewErrors(t *testing.T) {
	_, err := provider.New("openai:gpt-4.1", env())
	if !errors.Is(err, provider.ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("missing key: %v", err)
	}
	_, err = provider.New("nosuch:model", env())
	if !errors.Is(err, provider.ErrUnknownScheme) || !strings.Contains(err.Error(), "openai-compatible") {
		t.Errorf("unknown scheme: %v", err)
	}
	_, err = provider.New("openai-compatible:qwen3", env())
	if !errors.Is(err, provider.ErrBadURI) {
		t.Errorf("compatible without base URL: %v", err)
	}
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrSetup {
		t.Errorf("not a setup error: %v", err)
	}
}

// call builds the model for uri and makes one call against srv.
func call(t *testing.T, uri string, opts ...provider.Option) (model.ChatModel, error) {
	t.Helper()
	m, err := provider.New(uri, opts...)
	if err != nil {
		return nil, err
	}
	for _, err := range m.Stream(t.Context(), &model.Request{Messages: []*message.Msg{message.UserText("", "hi")}}) {
		if err != nil {
			return m, err
		}
	}
	return m, nil
}

func TestOpenAIFamilyOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		uri     string
		env     []string
		auth    string
		wantKey string // a body key the profile must send
	}{
		{"openai:gpt-4.1", []string{"OPENAI_API_KEY", "sk-oa"}, "Bearer sk-oa", ""},
		{"deepseek:deepseek-chat", []string{"DEEPSEEK_API_KEY", "sk-ds", "OPENAI_API_KEY", "sk-oa"}, "Bearer sk-ds", ""},
		{"kimi:kimi-k2", []string{"MOONSHOT_API_KEY", "sk-ms"}, "Bearer sk-ms", ""},
		{"qwen:qwen-plus", []string{"DASHSCOPE_API_KEY", "sk-dash"}, "Bearer sk-dash", ""},
		{"grok:grok-4", []string{"XAI_API_KEY", "xai-1"}, "Bearer xai-1", ""},
		// A real OpenAI key never goes to an arbitrary server.
		{"openai-compatible:qwen3", []string{"OPENAI_API_KEY", "sk-oa"}, "", ""},
		{"vllm:qwen3", []string{"OPENAI_COMPATIBLE_API_KEY", "local"}, "Bearer local", ""},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(chatSSE)))
			m, err := call(t, tc.uri, env(tc.env...), provider.WithBaseURL(srv.URL+"/v1"))
			if err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != tc.auth {
				t.Errorf("path %s, auth %q", req.Path, req.Header.Get("Authorization"))
			}
			if !strings.Contains(string(req.Body), `"model":"`+m.Name()+`"`) {
				t.Errorf("body %s", req.Body)
			}
		})
	}
	// DeepSeek's profile: string content and reasoning_content echo.
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(chatSSE)))
	m, err := provider.New("deepseek:deepseek-reasoner@"+srv.URL, env("DEEPSEEK_API_KEY", "k"))
	if err != nil {
		t.Fatal(err)
	}
	for range m.Stream(t.Context(), &model.Request{Messages: []*message.Msg{message.UserText("", "q"), message.AssistantText("", "a")}}) {
	}
	body, _ := fixture.Parse(srv.Requests()[0].Body)
	want, _ := fixture.Parse([]byte(`[{"role":"user","content":"q"},{"role":"assistant","content":"a","reasoning_content":""}]`))
	if err := fixture.Match(body.(map[string]any)["messages"], want, nil); err != nil {
		t.Errorf("deepseek messages: %v", err)
	}
}

func TestResponsesAndAnthropicOverHTTP(t *testing.T) {
	resp := "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n"
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(resp)))
	if _, err := call(t, "openai-responses:o4-mini@"+srv.URL+"/v1", env("OPENAI_API_KEY", "sk")); err != nil {
		t.Fatal(err)
	}
	if p := srv.Requests()[0].Path; p != "/v1/responses" {
		t.Errorf("path %s", p)
	}

	anth := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":0}}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	srv = wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(anth)))
	if _, err := call(t, "anthropic:claude-sonnet-4-5", env("ANTHROPIC_API_KEY", "ak"), provider.WithBaseURL(srv.URL)); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "ak" {
		t.Errorf("path %s, headers %v", r.Path, r.Header)
	}
	if _, err := provider.New("anthropic:claude", env()); !errors.Is(err, provider.ErrNoAPIKey) {
		t.Errorf("anthropic without key: %v", err)
	}
}

func TestGeminiOverHTTP(t *testing.T) {
	sse := "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hi\"}]},\"finishReason\":\"STOP\"}]}\n\n"
	for _, tc := range []struct {
		env  []string
		want string
	}{
		// Both set: GOOGLE_API_KEY wins, as in the google-genai SDKs the
		// reference's Gemini model reads the environment through.
		{[]string{"GEMINI_API_KEY", "g1", "GOOGLE_API_KEY", "g2"}, "g2"},
		{[]string{"GOOGLE_API_KEY", "g2"}, "g2"},
		{[]string{"GEMINI_API_KEY", "g1"}, "g1"},
	} {
		srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(sse)))
		if _, err := call(t, "gemini:gemini-2.5-flash", env(tc.env...), provider.WithBaseURL(srv.URL)); err != nil {
			t.Fatal(err)
		}
		r := srv.Requests()[0]
		if !strings.Contains(r.Path, "gemini-2.5-flash:streamGenerateContent") || r.Header.Get("X-Goog-Api-Key") != tc.want {
			t.Errorf("path %s, key %q, want %q", r.Path, r.Header.Get("X-Goog-Api-Key"), tc.want)
		}
	}
	_, err := provider.New("gemini:gemini-2.5-flash", env())
	if !errors.Is(err, provider.ErrNoAPIKey) || !strings.Contains(err.Error(), "GOOGLE_API_KEY or GEMINI_API_KEY") {
		t.Errorf("gemini without key: %v", err)
	}
}

func TestRegister(t *testing.T) {
	called := ""
	provider.Register("test-scheme", func(s provider.Spec) (model.ChatModel, error) {
		called = s.Model + "|" + s.BaseURL + "|" + s.Env("X")
		return nil, errors.New("no such model here")
	})
	if !slices.Contains(provider.Schemes(), "test-scheme") {
		t.Fatal("not listed")
	}
	_, err := provider.New("test-scheme:m1@http://h:1/v1", env("X", "y"))
	if called != "m1|http://h:1/v1|y" {
		t.Errorf("factory saw %q", called)
	}
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrSetup || me.Message != "no such model here" {
		t.Errorf("error %v", err)
	}
}

func TestOllamaOverHTTP(t *testing.T) {
	nd := "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":true,\"prompt_eval_count\":1,\"eval_count\":1}\n"
	srv := wiretest.NewServer(t, wiretest.Body("application/x-ndjson", []byte(nd)))
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, opt := range []provider.Option{env("OLLAMA_HOST", host), env("OLLAMA_HOST", srv.URL+"/"), provider.WithBaseURL(srv.URL)} {
		if _, err := call(t, "ollama:qwen3:8b", opt); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range srv.Requests() {
		if r.Path != "/api/chat" || !strings.Contains(string(r.Body), `"model":"qwen3:8b"`) {
			t.Errorf("path %s body %s", r.Path, r.Body)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests", n)
	}
}

// hostRecorder answers every request with a finished Ollama stream and
// records the URL it was sent to, so OLLAMA_HOST values that name real
// hosts can be checked without a network.
type hostRecorder struct{ urls []string }

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.urls = append(h.urls, r.URL.String())
	body := "{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":true}\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-ndjson"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// OLLAMA_HOST is read as the ollama clients read it: a scheme given
// explicitly brings its own default port (80, 443), 11434 is only the
// default for a bare host, and a path prefix (a reverse proxy) is kept.
func TestOllamaHostDefaults(t *testing.T) {
	for host, want := range map[string]string{
		"https://ollama.example.com":        "https://ollama.example.com:443/api/chat",
		"http://box":                        "http://box:80/api/chat",
		"box":                               "http://box:11434/api/chat",
		"box:1234":                          "http://box:1234/api/chat",
		"http://box:1234/":                  "http://box:1234/api/chat",
		"https://gw.example/ollama/":        "https://gw.example:443/ollama/api/chat",
		"http://[::1]":                      "http://[::1]:80/api/chat",
		"https://gw.example:8443/ollama/v2": "https://gw.example:8443/ollama/v2/api/chat",
	} {
		rec := &hostRecorder{}
		if _, err := call(t, "ollama:qwen3", env("OLLAMA_HOST", host), provider.WithHTTPClient(&http.Client{Transport: rec})); err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		if len(rec.urls) != 1 || rec.urls[0] != want {
			t.Errorf("OLLAMA_HOST=%s: called %v, want %s", host, rec.urls, want)
		}
	}
}
