package wiretest

import (
	"context"
	"encoding/json"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

// Wire returns the bytes of a file in testdata/fixtures/wire.
func Wire(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture.Path(t, "fixtures", "wire", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Request is one request the server received.
type Request struct {
	Method string
	Path   string // with the raw query
	Header http.Header
	Body   []byte
}

// Server is an httptest server that answers each request with the next
// scripted Handler (the last one repeats) and records every request.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
	handlers []http.HandlerFunc
}

// NewServer starts a server; it is closed when the test ends.
func NewServer(t testing.TB, handlers ...http.HandlerFunc) *Server {
	s := &Server{handlers: handlers}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body := make([]byte, 0, 1024)
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		body = append(body, buf[:n]...)
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	i := len(s.requests)
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
	h := s.handlers[min(i, len(s.handlers)-1)]
	s.mu.Unlock()
	h(w, r)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Body answers 200 with body and the content type, flushing it in one go.
func Body(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	}
}

// Status answers with a status, optional headers (key, value pairs) and a
// JSON error body.
func Status(code int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

// Reset closes the connection with a TCP RST after writing prefix (nothing
// when prefix is empty: a reset before the first byte). With a prefix, the
// status line and headers go out first, so the adapter has begun reading.
func Reset(contentType string, prefix []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if len(prefix) > 0 {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(http.StatusOK)
			w.Write(prefix)
			w.(http.Flusher).Flush()
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	}
}

// Collect drains a stream, copying every chunk (adapters reuse the Parts
// slice between steps). It returns the chunks before the first error and
// that error.
func Collect(seq iter.Seq2[model.Chunk, error]) ([]model.Chunk, error) {
	var out []model.Chunk
	for c, err := range seq {
		if err != nil {
			return out, err
		}
		c.Parts = append([]model.Part(nil), c.Parts...)
		if c.Usage != nil {
			u := *c.Usage
			c.Usage = &u
		}
		out = append(out, c)
	}
	return out, nil
}

// Accumulate folds chunks with a deterministic stamp source.
func Accumulate(t testing.TB, chunks []model.Chunk) *model.Accumulator {
	t.Helper()
	acc := model.NewAccumulator(&stamp.Fixed{Time: "2026-01-01T00:00:00"})
	for _, c := range chunks {
		if err := acc.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return acc
}

// EqualJSON fails the test unless got and want are the same JSON value
// (key order and white space aside; numbers compared as written).
func EqualJSON(t testing.TB, got, want []byte) {
	t.Helper()
	g, err := fixture.Parse(got)
	if err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	w, err := fixture.Parse(want)
	if err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if err := fixture.Match(g, w, nil); err != nil {
		t.Fatalf("JSON differs: %v\n got: %s\nwant: %s", err, got, want)
	}
}

// Compact returns v marshalled, for messages.
func Compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Concurrent runs n streams of m at once against a server answering body,
// failing on any error or a differing number of chunks: a Model is shared
// by the replies of many agents.
func Concurrent(t *testing.T, n int, contentType string, body []byte, newModel func(baseURL string) model.ChatModel, req *model.Request) {
	t.Helper()
	srv := NewServer(t, Body(contentType, body))
	m := newModel(srv.URL)
	counts := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var chunks []model.Chunk
			chunks, errs[i] = Collect(m.Stream(context.Background(), req))
			counts[i] = len(chunks)
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || counts[i] != counts[0] || counts[0] == 0 {
			t.Fatalf("stream %d: %d chunks (stream 0: %d), err %v", i, counts[i], counts[0], errs[i])
		}
	}
}
