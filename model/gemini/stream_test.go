package gemini

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

// sse frames chunks the way the API does, with CRLF separators.
func sse(chunks ...string) []byte {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\r\n\r\n")
	}
	return []byte(b.String())
}

func chunkJSON(parts string, finish string, prompt, total int) string {
	s := `{"candidates":[{"content":{"role":"model","parts":[` + parts + `]},"index":0`
	if finish != "" {
		s += `,"finishReason":"` + finish + `"`
	}
	return s + `}],"usageMetadata":{"promptTokenCount":` + itoa(prompt) + `,"totalTokenCount":` + itoa(total) + `}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

var hi = &model.Request{Messages: []*message.Msg{message.UserText("u", "hi")}}

func streamBody(t *testing.T, m *Model, body []byte) ([]model.Chunk, error) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", body))
	m.baseURL = srv.URL
	return wiretest.Collect(m.Stream(context.Background(), hi))
}

func TestStreamBlocksAndSignatures(t *testing.T) {
	body := sse(
		chunkJSON(`{"text":"think 1","thought":true}`, "", 5, 8),
		chunkJSON(`{"text":" more","thought":true,"thoughtSignature":"T1"},{"text":"think 2","thought":true}`, "", 5, 12),
		chunkJSON(`{"text":"Hello"},{"text":" there"}`, "", 5, 14),
		chunkJSON(`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},{"text":"after","thoughtSignature":"T2"},{"executableCode":{"code":"1"}}`, "", 5, 20),
		chunkJSON(`{"text":"tail"}`, "STOP", 6, 22),
	)
	chunks, err := streamBody(t, New("g"), body)
	if err != nil {
		t.Fatal(err)
	}
	acc := wiretest.Accumulate(t, chunks)
	c := acc.Content()
	// thinking(T1) | thinking | text | data | text "after" | carrier(T2) | text "tail"
	if len(c) != 7 {
		for _, b := range c {
			js, _ := b.MarshalJSON()
			t.Log(string(js))
		}
		t.Fatalf("%d blocks", len(c))
	}
	th1, th2, txt, data, after, carrier, tail := c[0].(*block.Thinking), c[1].(*block.Thinking), c[2].(*block.Text),
		c[3].(*block.Data), c[4].(*block.Text), c[5].(*block.Thinking), c[6].(*block.Text)
	if th1.Thinking != "think 1 more" || th1.GetString("thought_signature") != "T1" || th2.Thinking != "think 2" || th2.Extra != nil ||
		txt.Text != "Hello there" || data.MediaType() != "image/png" || after.Text != "after" ||
		carrier.Thinking != "" || carrier.GetString("thought_signature") != "T2" || tail.Text != "tail" {
		t.Fatalf("blocks %+v %+v %+v %+v %+v %+v", th1, th2, txt, after, carrier, tail)
	}
	if u := acc.Usage(); *u != (message.Usage{InputTokens: 6, OutputTokens: 16}) {
		t.Fatalf("usage %+v", u)
	}
}

func TestStreamEndsWithoutFinishReason(t *testing.T) {
	chunks, err := streamBody(t, New("g"), sse(chunkJSON(`{"text":"half"}`, "", 1, 2)))
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrConnection || !errors.Is(err, io.ErrUnexpectedEOF) || len(chunks) != 1 {
		t.Fatalf("err = %v, %d chunks", err, len(chunks))
	}
}

func TestStreamMalformedChunk(t *testing.T) {
	body := append(sse(chunkJSON(`{"text":"ok"}`, "", 1, 2)), "data: {\"candidates\": [{\"content\r\n\r\n"...)
	chunks, err := streamBody(t, New("g"), body)
	var me *model.Error
	var se *json.SyntaxError
	if !errors.As(err, &me) || me.Type != event.ErrUpstream || !errors.As(err, &se) || len(chunks) != 1 {
		t.Fatalf("err = %v, %d chunks", err, len(chunks))
	}
}

func TestStreamErrorObject(t *testing.T) {
	body := sse(chunkJSON(`{"text":"ok"}`, "", 1, 2), `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`)
	chunks, err := streamBody(t, New("g"), body)
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrUpstream || me.Message != "The model is overloaded." || len(chunks) != 1 {
		t.Fatalf("err = %v, %d chunks", err, len(chunks))
	}
}

func TestStreamPromptBlocked(t *testing.T) {
	body := sse(`{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}`)
	_, err := streamBody(t, New("g"), body)
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrInvalidRequest || !strings.Contains(me.Message, "SAFETY") {
		t.Fatalf("err = %v", err)
	}
}

func TestHTTPErrors(t *testing.T) {
	wiretest.RunErrorPaths(t, wiretest.ErrorPaths{
		ContentType: "text/event-stream",
		OK:          sse(chunkJSON(`{"text":"ok"}`, "STOP", 1, 2)),
		Partial:     sse(chunkJSON(`{"text":"part"}`, "", 1, 2)),
		ErrorBody: func(status int) string {
			return `{"error":{"code":` + itoa(status) + `,"message":"the provider says no","status":"X"}}`
		},
		Message: "the provider says no",
		Request: hi,
		New: func(base string, sleep func(context.Context, time.Duration) error) model.ChatModel {
			m := New("g", WithBaseURL(base), WithRetries(2))
			m.policy.Sleep = sleep
			return m
		},
	})
}

func TestStreamCancel(t *testing.T) {
	srv := wiretest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(sse(chunkJSON(`{"text":"one"}`, "", 1, 2)))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n int
	var err error
	for _, e := range New("g", WithBaseURL(srv.URL)).Stream(ctx, hi) {
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
}

func TestConcurrentStreams(t *testing.T) {
	wiretest.Concurrent(t, 8, "text/event-stream", wiretest.Wire(t, "gemini25_stream_parallel_function_calls.sse"),
		func(base string) model.ChatModel { return New("g", WithBaseURL(base)) }, hi)
}

// A base URL that already names the API version (as Google documents
// endpoints, e.g. https://generativelanguage.googleapis.com/v1beta) is not
// given a second /v1beta.
func TestBaseURLWithVersion(t *testing.T) {
	for _, suffix := range []string{"", "/", "/v1beta", "/v1beta/"} {
		srv := wiretest.NewServer(t, wiretest.Body("text/event-stream", sse(chunkJSON(`{"text":"ok"}`, "STOP", 1, 2))))
		if _, err := wiretest.Collect(New("g", WithBaseURL(srv.URL+suffix)).Stream(context.Background(), hi)); err != nil {
			t.Fatalf("%q: %v", suffix, err)
		}
		if p := srv.Requests()[0].Path; p != "/v1beta/models/g:streamGenerateContent?alt=sse" {
			t.Errorf("base %q: path %s", suffix, p)
		}
	}
}
