package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/block"
	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/internal/wiretest"
)

func ndjson(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

func msgLine(msg string) string {
	return `{"model":"qwen3","created_at":"2025-07-07T20:22:19Z","message":{"role":"assistant",` + msg + `},"done":false}`
}

const doneLine = `{"model":"qwen3","created_at":"2025-07-07T20:22:20Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":30,"eval_count":12}`

var hi = &model.Request{Messages: []*message.Msg{message.UserText("u", "hi")}}

func streamBody(t *testing.T, m *Model, body []byte) ([]model.Chunk, error) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Body("application/x-ndjson", body))
	m.baseURL = srv.URL
	return wiretest.Collect(m.Stream(context.Background(), hi))
}

// Two chunks each carrying one call to the same tool get distinct ids (the
// reference names both "0_get_weather"); thinking and text runs form one
// block each; a server id is kept.
func TestStreamBlocksAndIDs(t *testing.T) {
	body := ndjson(
		msgLine(`"content":"","thinking":"Let me"`),
		msgLine(`"content":"","thinking":" think."`),
		msgLine(`"content":"Sure"`),
		msgLine(`"content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]`),
		msgLine(`"content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Rome"}}}]`),
		msgLine(`"content":"","tool_calls":[{"id":"call_srv","function":{"index":0,"name":"clock","arguments":{}}},{"function":{"name":"echo","arguments":"{\"s\":\"x\"}"}}]`),
		msgLine(`"content":"Done."`),
		doneLine)
	chunks, err := streamBody(t, New("qwen3"), body)
	if err != nil {
		t.Fatal(err)
	}
	acc := wiretest.Accumulate(t, chunks)
	c := acc.Content()
	if len(c) != 7 {
		t.Fatalf("%d blocks", len(c))
	}
	th, txt, p1, p2, clock, echo, done := c[0].(*block.Thinking), c[1].(*block.Text), c[2].(*block.ToolCall), c[3].(*block.ToolCall),
		c[4].(*block.ToolCall), c[5].(*block.ToolCall), c[6].(*block.Text)
	if th.Thinking != "Let me think." || txt.Text != "Sure" || done.Text != "Done." || txt.ID == done.ID {
		t.Fatalf("text blocks %+v %+v %+v", th, txt, done)
	}
	if p1.ID == p2.ID || p1.Input != `{"city":"Paris"}` || p2.Input != `{"city":"Rome"}` {
		t.Fatalf("calls %+v %+v", p1, p2)
	}
	if clock.ID != "call_srv" || clock.Input != "{}" || echo.Input != `{"s":"x"}` {
		t.Fatalf("calls %+v %+v", clock, echo)
	}
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 30, OutputTokens: 12}) {
		t.Fatalf("usage %+v", u)
	}
}

func TestStreamEndsWithoutDone(t *testing.T) {
	chunks, err := streamBody(t, New("qwen3"), ndjson(msgLine(`"content":"half"`)))
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrConnection || !errors.Is(err, io.ErrUnexpectedEOF) || len(chunks) != 1 {
		t.Fatalf("err = %v, %d chunks", err, len(chunks))
	}
}

func TestStreamMalformedLine(t *testing.T) {
	chunks, err := streamBody(t, New("qwen3"), ndjson(msgLine(`"content":"ok"`), `{"model":"qwen3","message":{"content":"x"`, doneLine))
	var me *model.Error
	var se *json.SyntaxError
	if !errors.As(err, &me) || me.Type != event.ErrUpstream || !errors.As(err, &se) || len(chunks) != 1 {
		t.Fatalf("err = %v, %d chunks", err, len(chunks))
	}
}

func TestStreamErrorLine(t *testing.T) {
	chunks, err := streamBody(t, New("qwen3"), ndjson(msgLine(`"content":"ok"`), `{"error":"an error was encountered while running the model: unexpected EOF"}`))
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrUpstream || !strings.Contains(me.Message, "unexpected EOF") || len(chunks) != 1 {
		t.Fatalf("err = %v, %d chunks", err, len(chunks))
	}
}

func TestHTTPErrors(t *testing.T) {
	wiretest.RunErrorPaths(t, wiretest.ErrorPaths{
		ContentType: "application/x-ndjson",
		OK:          ndjson(msgLine(`"content":"ok"`), doneLine),
		Partial:     ndjson(msgLine(`"content":"part"`)),
		ErrorBody:   func(int) string { return `{"error":"the provider says no"}` },
		Message:     "the provider says no",
		Request:     hi,
		New: func(base string, sleep func(context.Context, time.Duration) error) model.ChatModel {
			m := New("qwen3", WithBaseURL(base), WithRetries(2))
			m.policy.Sleep = sleep
			return m
		},
	})
	// A missing model is a 404 with Ollama's message.
	srv := wiretest.NewServer(t, wiretest.Status(404, `{"error":"model \"nope\" not found, try pulling it first"}`))
	_, err := wiretest.Collect(New("nope", WithBaseURL(srv.URL)).Stream(context.Background(), hi))
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrInvalidRequest || !strings.Contains(me.Message, "try pulling it first") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamCancel(t *testing.T) {
	srv := wiretest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Write(ndjson(msgLine(`"content":"one"`)))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n int
	var err error
	for _, e := range New("qwen3", WithBaseURL(srv.URL), WithAPIKey("k")).Stream(ctx, hi) {
		if e != nil {
			err = e
			break
		}
		n++
		cancel()
	}
	if n != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "Bearer k" {
		t.Fatalf("Authorization %q", h)
	}
}

func TestConcurrentStreams(t *testing.T) {
	wiretest.Concurrent(t, 8, "application/x-ndjson", wiretest.Wire(t, "ollama_chat_stream_tool_call.ndjson"),
		func(base string) model.ChatModel { return New("qwen3", WithBaseURL(base)) }, hi)
}
