package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

// sse frames events as the API does: "event: <type>" plus one data line.
func sse(events ...string) []byte {
	var b strings.Builder
	for _, e := range events {
		var head struct{ Type string }
		json.Unmarshal([]byte(e), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + e + "\n\n")
	}
	return []byte(b.String())
}

const (
	evStart = `{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_creation_input_tokens":7,"cache_read_input_tokens":100,"output_tokens":1}}}`
	evStop  = `{"type":"message_stop"}`
)

var hello = request("hello")

func request(text string) *model.Request {
	return &model.Request{Messages: []*message.Msg{message.UserText("u", text)}}
}

func stream(t *testing.T, m *Model, body []byte) ([]model.Chunk, error) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", body))
	m.baseURL = srv.URL
	return wiretest.Collect(m.Stream(context.Background(), hello))
}

// Interleaved thinking: two thinking blocks in one response keep separate
// ids and separate signatures (the reference merges them and keeps one).
func TestStreamSeveralThinkingBlocksKeepTheirSignatures(t *testing.T) {
	body := sse(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"first"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG/1+=="}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"redacted_thinking","data":"REDACTED=="}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"second"}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"signature_delta","signature":"SIG/2"}}`,
		`{"type":"content_block_stop","index":3}`,
		`{"type":"content_block_start","index":4,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"done"}}`,
		`{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":{}}}`,
		`{"type":"content_block_stop","index":4}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}`,
		evStop)
	chunks, err := stream(t, New("m"), body)
	if err != nil {
		t.Fatal(err)
	}
	acc := wiretest.Accumulate(t, chunks)
	c := acc.Content()
	if len(c) != 5 {
		t.Fatalf("%d blocks", len(c))
	}
	th1, tool, red, th2, txt := c[0].(*block.Thinking), c[1].(*block.ToolCall), c[2].(*block.Thinking), c[3].(*block.Thinking), c[4].(*block.Text)
	if th1.Thinking != "first" || th1.GetString("signature") != "SIG/1+==" ||
		th2.Thinking != "second" || th2.GetString("signature") != "SIG/2" ||
		red.Thinking != "" || red.GetString("redacted_thinking_data") != "REDACTED==" ||
		tool.Input != "{}" || tool.Name != "now" || txt.Text != "done" {
		t.Fatalf("blocks %+v %+v %+v %+v %+v", th1, tool, red, th2, txt)
	}
	if th1.ID == th2.ID || th1.ID == red.ID || th1.ID == txt.ID {
		t.Fatal("blocks share an id")
	}
	// message_delta carried only output_tokens: the rest is kept.
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 10, OutputTokens: 42, CacheInputTokens: 100, CacheCreationInputTokens: 7}) {
		t.Fatalf("usage %+v", u)
	}
	// Formatted back: both signatures, each on its own block.
	reply := mustAssistant(t, c...)
	reply.Content = append(reply.Content, resultBlock("toolu_1", "now", "noon"))
	b := reqBody(t, New("m"), &model.Request{Messages: []*message.Msg{message.UserText("u", "hi"), reply}})
	want := `[{"role":"user","content":[{"type":"text","text":"hi"}]},
	 {"role":"assistant","content":[
	   {"type":"thinking","thinking":"first","signature":"SIG/1+=="},
	   {"type":"tool_use","id":"toolu_1","name":"now","input":{}},
	   {"type":"redacted_thinking","data":"REDACTED=="},
	   {"type":"thinking","thinking":"second","signature":"SIG/2"},
	   {"type":"text","text":"done"}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"noon"}]}]}]`
	wiretest.EqualJSON(t, []byte(field(t, b, "messages")), []byte(want))
}

func TestStreamErrorEvent(t *testing.T) {
	body := sse(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"par"}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	chunks, err := stream(t, New("m"), body)
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrUpstream || me.Message != "Overloaded" {
		t.Fatalf("err = %v", err)
	}
	if len(chunks) != 2 || chunks[1].Parts[0].Text != "par" {
		t.Fatalf("chunks before the error: %+v", chunks)
	}
}

// A stream that stops without message_stop keeps what arrived and then
// reports the truncation.
func TestStreamEndsWithoutMessageStop(t *testing.T) {
	body := sse(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"half"}}`)
	chunks, err := stream(t, New("m"), body)
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrConnection || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v", err)
	}
	if len(chunks) != 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
}

func TestStreamMalformedEvent(t *testing.T) {
	body := append(sse(evStart), []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_de\n\n")...)
	chunks, err := stream(t, New("m"), body)
	var me *model.Error
	var se *json.SyntaxError
	if !errors.As(err, &me) || me.Type != event.ErrUpstream || !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if len(chunks) != 1 || chunks[0].Usage == nil {
		t.Fatalf("chunks %+v", chunks)
	}
}

var okBody = sse(evStart,
	`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
	`{"type":"content_block_stop","index":0}`, evStop)

func TestHTTPErrors(t *testing.T) {
	wiretest.RunErrorPaths(t, wiretest.ErrorPaths{
		ContentType: "text/event-stream",
		OK:          okBody,
		Partial: sse(evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"part"}}`),
		ErrorBody: func(status int) string {
			typ := map[int]string{401: "authentication_error", 429: "rate_limit_error", 500: "api_error"}[status]
			return `{"type":"error","error":{"type":"` + typ + `","message":"the provider says no"}}`
		},
		Message: "the provider says no",
		Request: hello,
		New: func(base string, sleep func(context.Context, time.Duration) error) model.ChatModel {
			m := New("m", WithBaseURL(base), WithRetries(2))
			m.policy.Sleep = sleep
			return m
		},
	})
}

// Cancelling ctx mid-stream ends it with an error wrapping context.Canceled.
func TestStreamCancel(t *testing.T) {
	var served atomic.Bool
	srv := wiretest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		served.Store(true)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(sse(evStart))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n int
	var err error
	for c, e := range New("m", WithBaseURL(srv.URL)).Stream(ctx, hello) {
		if e != nil {
			err = e
			break
		}
		if c.Usage != nil {
			n++
			cancel()
		}
	}
	if n != 1 || !errors.Is(err, context.Canceled) || !served.Load() {
		t.Fatalf("n=%d err=%v", n, err)
	}
}

// Breaking out of the loop early closes the response (no goroutine or
// connection is left behind: the race detector and the server's Close,
// which waits for handlers, would notice).
func TestStreamEarlyBreak(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", okBody))
	for range New("m", WithBaseURL(srv.URL)).Stream(context.Background(), hello) {
		break
	}
}

func TestConcurrentStreams(t *testing.T) {
	wiretest.Concurrent(t, 8, "text/event-stream", wiretest.Wire(t, "anthropic_messages_stream_parallel_tool_use.sse"),
		func(base string) model.ChatModel { return New("m", WithBaseURL(base)) }, hello)
}

// A base URL that already ends in the API version (the shape OpenAI-style
// base URLs have, and proxies document) is not given a second /v1.
func TestBaseURLWithVersion(t *testing.T) {
	for _, suffix := range []string{"", "/", "/v1", "/v1/"} {
		srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", okBody))
		if _, err := wiretest.Collect(New("m", WithBaseURL(srv.URL+suffix)).Stream(context.Background(), hello)); err != nil {
			t.Fatalf("%q: %v", suffix, err)
		}
		if p := srv.Requests()[0].Path; p != "/v1/messages" {
			t.Errorf("base %q: path %s, want /v1/messages", suffix, p)
		}
	}
}
