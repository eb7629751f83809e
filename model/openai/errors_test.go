package openai_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
	"github.com/agentscope-go/agentscope/model/openai"
)

const helloSSE = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n" +
	"data: [DONE]\n\n"

// sleeps records the retry waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func helloReq() *model.Request {
	return &model.Request{Messages: []*message.Msg{message.UserText("", "hi")}}
}

func chatAt(url string, sl *sleeps, opts ...openai.Option) *openai.Chat {
	return openai.New("gpt-test", append([]openai.Option{
		openai.WithBaseURL(url), openai.WithAPIKey("k"), openai.WithStamp(fixedStamp()),
		openai.WithMaxRetries(2), openai.WithSleep(sl.sleep),
	}, opts...)...)
}

func modelError(t *testing.T, err error, typ event.ErrorType) *model.Error {
	t.Helper()
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T) is not a *model.Error", err, err)
	}
	if me.Type != typ {
		t.Fatalf("error type %q, want %q (%v)", me.Type, typ, err)
	}
	return me
}

func TestError401NotRetried(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Status(401, `{"error":{"message":"Incorrect API key provided: sk-xx.","type":"invalid_request_error","code":"invalid_api_key"}}`))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
	me := modelError(t, r.err, event.ErrAuthentication)
	if me.Status != 401 || me.Message != "Incorrect API key provided: sk-xx." || me.Provider != "openai" {
		t.Errorf("error = %+v", me)
	}
	if r.chunks != 0 || len(srv.Requests()) != 1 || len(sl.d) != 0 {
		t.Errorf("chunks %d, requests %d, sleeps %v", r.chunks, len(srv.Requests()), sl.d)
	}
}

func TestError429RetryAfterThenSuccess(t *testing.T) {
	srv := wiretest.NewServer(t,
		wiretest.Status(429, `{"error":{"message":"Rate limit reached","type":"requests"}}`, "Retry-After", "7"),
		wiretest.Body("text/event-stream", []byte(helloSSE)))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl, openai.WithRetryDelay(10*time.Millisecond, time.Minute)).Stream(ctx(t), helloReq()))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(sl.d) != 1 || sl.d[0] != 7*time.Second {
		t.Errorf("waits %v, want [7s] from Retry-After", sl.d)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
	checkContent(t, r.acc.Content(), "", "Hello", nil)
	// The same body is sent on the retry.
	reqs := srv.Requests()
	if string(reqs[0].Body) != string(reqs[1].Body) {
		t.Error("retry sent a different body")
	}
}

func TestError429Exhausted(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Status(429, `{"error":{"message":"slow down"}}`))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
	me := modelError(t, r.err, event.ErrRateLimit)
	if me.Message != "slow down" || len(srv.Requests()) != 3 || len(sl.d) != 2 {
		t.Errorf("error %+v, requests %d, waits %v", me, len(srv.Requests()), sl.d)
	}
}

func TestError500ThenSuccess(t *testing.T) {
	srv := wiretest.NewServer(t,
		wiretest.Status(500, `{"error":{"message":"The server had an error"}}`),
		wiretest.Body("text/event-stream", []byte(helloSSE)))
	var sl sleeps
	base := 40 * time.Millisecond
	r := drain(t, chatAt(srv.URL, &sl, openai.WithRetryDelay(base, time.Second)).Stream(ctx(t), helloReq()))
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Full jitter: one wait in (0, base].
	if len(sl.d) != 1 || sl.d[0] <= 0 || sl.d[0] > base {
		t.Errorf("waits %v, want one in (0, %v]", sl.d, base)
	}
	checkContent(t, r.acc.Content(), "", "Hello", nil)
	if u := r.acc.Usage(); u == nil || *u != (message.Usage{InputTokens: 3, OutputTokens: 2}) {
		t.Errorf("usage %+v", u)
	}
}

func TestError400NotRetried(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Status(400, `{"error":{"message":"Invalid 'messages[0].name'"}}`))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
	modelError(t, r.err, event.ErrInvalidRequest)
	if len(srv.Requests()) != 1 {
		t.Errorf("%d requests", len(srv.Requests()))
	}
}

func TestConnectionResetBeforeFirstByteIsRetried(t *testing.T) {
	srv := wiretest.NewServer(t,
		wiretest.Reset("", nil),
		wiretest.Body("text/event-stream", []byte(helloSSE)))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(srv.Requests()) != 2 || len(sl.d) != 1 {
		t.Errorf("requests %d, waits %v", len(srv.Requests()), sl.d)
	}
	checkContent(t, r.acc.Content(), "", "Hello", nil)
}

func TestConnectionResetAfterFirstByteIsNotRetried(t *testing.T) {
	prefix := helloSSE[:strings.Index(helloSSE, "data: {\"choices\":[{\"index\":0,\"delta\":{},")]
	srv := wiretest.NewServer(t,
		wiretest.Reset("text/event-stream", []byte(prefix)),
		wiretest.Body("text/event-stream", []byte(helloSSE)))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
	modelError(t, r.err, event.ErrConnection)
	if r.chunks != 2 {
		t.Errorf("%d chunks before the error, want 2", r.chunks)
	}
	if len(srv.Requests()) != 1 || len(sl.d) != 0 {
		t.Errorf("mid-stream failure was retried: requests %d", len(srv.Requests()))
	}
	checkContent(t, r.acc.Content(), "", "Hello", nil)
}

func TestMalformedDataLine(t *testing.T) {
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"broken\"\n\n" +
		"data: [DONE]\n\n"
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(body)))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
	me := modelError(t, r.err, event.ErrUpstream)
	if !errors.Is(r.err, openai.ErrMalformed) || !strings.Contains(me.Message, `broken`) {
		t.Errorf("error %v does not name the bad line", r.err)
	}
	if r.chunks != 1 {
		t.Errorf("%d chunks before the error", r.chunks)
	}
}

func TestMalformedShapes(t *testing.T) {
	// Valid JSON, wrong shapes: typed errors, never a panic.
	for _, line := range []string{
		`[]`, `"x"`, `{"choices":"x"}`, `{"choices":[{"delta":{"tool_calls":[{"index":-1}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":99999999}]}}]}`,
		`{"choices":[{"delta":{"content":5}}]}`, `{"error":5}`,
	} {
		srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte("data: "+line+"\n\ndata: [DONE]\n\n")))
		var sl sleeps
		r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
		var me *model.Error
		if !errors.As(r.err, &me) {
			t.Errorf("%s: error %v", line, r.err)
		}
	}
}

func TestStreamEndWithoutFinish(t *testing.T) {
	const text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"part\"}}]}\n\n"
	const finish = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
	for _, tc := range []struct {
		name, body string
		wantErr    bool
	}{
		{"no finish, no DONE: cut short", text, true},
		{"finish without DONE", text + finish, false},
		{"DONE without finish", text + "data: [DONE]\n\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(tc.body)))
			var sl sleeps
			r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
			checkContent(t, r.acc.Content(), "", "part", nil)
			if !tc.wantErr {
				if r.err != nil {
					t.Fatal(r.err)
				}
				return
			}
			modelError(t, r.err, event.ErrConnection)
			if !errors.Is(r.err, openai.ErrTruncated) {
				t.Errorf("error %v is not ErrTruncated", r.err)
			}
		})
	}
}

func TestInStreamErrorObject(t *testing.T) {
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n" +
		"data: {\"error\":{\"message\":\"Rate limit exceeded upstream\",\"code\":429}}\n\n"
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(body)))
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(ctx(t), helloReq()))
	me := modelError(t, r.err, event.ErrRateLimit)
	if me.Message != "Rate limit exceeded upstream" || r.chunks != 1 || len(srv.Requests()) != 1 {
		t.Errorf("error %+v, chunks %d", me, r.chunks)
	}
}

func TestCancelMidStream(t *testing.T) {
	release := make(chan struct{})
	gone := make(chan struct{})
	srv := wiretest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(gone)
		case <-release:
		}
	})
	defer close(release)
	c, cancel := context.WithCancel(t.Context())
	defer cancel()
	var sl sleeps
	var got []error
	n := 0
	for _, err := range chatAt(srv.URL, &sl).Stream(c, helloReq()) {
		if err != nil {
			got = append(got, err)
			continue
		}
		n++
		cancel()
	}
	if n != 1 || len(got) != 1 || !errors.Is(got[0], context.Canceled) {
		t.Fatalf("chunks %d, errors %v", n, got)
	}
	modelError(t, got[0], event.ErrConnection)
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("server never saw the request end")
	}
}

func TestCancelBeforeCall(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(helloSSE)))
	c, cancel := context.WithCancel(t.Context())
	cancel()
	var sl sleeps
	r := drain(t, chatAt(srv.URL, &sl).Stream(c, helloReq()))
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("error %v", r.err)
	}
}

func TestConsumerBreakClosesBody(t *testing.T) {
	gone := make(chan struct{})
	srv := wiretest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	})
	var sl sleeps
	for range chatAt(srv.URL, &sl).Stream(t.Context(), helloReq()) {
		break
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("breaking out of the stream left the response open")
	}
}

func TestResponsesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		typ        event.ErrorType
		msg        string
	}{
		{"error event", "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Too many\"}\n\n", event.ErrRateLimit, "Too many"},
		{"response.failed", "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n", event.ErrUpstream, "boom"},
		{"cut short", "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\"hi\"}\n\n", event.ErrConnection, openai.ErrTruncated.Error()},
		{"malformed", "event: response.output_text.delta\ndata: {\"type\":\n\n", event.ErrUpstream, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", []byte(tc.body)))
			var sl sleeps
			m := openai.NewResponses("o4-mini", openai.WithBaseURL(srv.URL), openai.WithSleep(sl.sleep))
			r := drain(t, m.Stream(ctx(t), helloReq()))
			me := modelError(t, r.err, tc.typ)
			if tc.msg != "" && me.Message != tc.msg {
				t.Errorf("message %q, want %q", me.Message, tc.msg)
			}
		})
	}
	srv := wiretest.NewServer(t, wiretest.Status(401, `{"error":{"message":"bad key"}}`))
	var sl sleeps
	r := drain(t, openai.NewResponses("o4-mini", openai.WithBaseURL(srv.URL), openai.WithSleep(sl.sleep)).Stream(ctx(t), helloReq()))
	if me := modelError(t, r.err, event.ErrAuthentication); me.Message != "bad key" {
		t.Errorf("message %q", me.Message)
	}
}
