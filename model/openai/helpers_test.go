package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agentscope-go/agentscope/internal/fixture"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/stamp"
)

// server is an httptest server that records every request body.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	paths   []string
	headers []http.Header
}

func (s *server) record(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies = append(s.bodies, body)
	s.paths = append(s.paths, r.URL.Path)
	s.headers = append(s.headers, r.Header.Clone())
	return body
}

func (s *server) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func (s *server) body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record(r)
		h(w, r, s.requests())
	}))
	t.Cleanup(s.Close)
	return s
}

// replay serves a recorded wire body for every request.
func replay(t *testing.T, name string) *server {
	t.Helper()
	body := readWire(t, name)
	return newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	})
}

func readWire(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(fixture.Path(t, "fixtures", "wire", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parseJSON decodes JSON into generic values with numbers kept exact.
func parseJSON(t *testing.T, data []byte) any {
	t.Helper()
	v, err := fixture.Parse(data)
	if err != nil {
		t.Fatalf("parse %s: %v", data, err)
	}
	return v
}

// sameJSON fails unless got and want are the same JSON value (key order
// and whitespace ignored).
func sameJSON(t *testing.T, what string, got []byte, want any) {
	t.Helper()
	if err := fixture.Match(parseJSON(t, got), want, nil); err != nil {
		t.Errorf("%s differs: %v\n got: %s", what, err, got)
	}
}

// result is a drained stream.
type result struct {
	parts  []model.Part
	chunks int
	usage  []*message.Usage
	acc    *model.Accumulator
	err    error
	errAt  int // chunks seen before the error
}

func drain(t *testing.T, seq iter.Seq2[model.Chunk, error]) result {
	t.Helper()
	r := result{acc: model.NewAccumulator(&stamp.Fixed{Time: "2026-01-01T00:00:00"})}
	for c, err := range seq {
		if err != nil {
			r.err, r.errAt = err, r.chunks
			break
		}
		r.chunks++
		for _, p := range c.Parts {
			p.Extra = append(p.Extra[:0:0], p.Extra...)
			r.parts = append(r.parts, p)
		}
		if c.Usage != nil {
			u := *c.Usage
			r.usage = append(r.usage, &u)
		}
		if err := r.acc.Add(c); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	return r
}

// boundaries lists "kind:id" each time consecutive parts move to another
// block: the block structure the agent turns into START/END events.
func (r result) boundaries() []string {
	var out []string
	last := ""
	for _, p := range r.parts {
		k := p.Kind.String() + ":" + p.ID
		if k != last {
			out = append(out, k)
			last = k
		}
	}
	return out
}

func id(n int) string {
	s := strings.Repeat("0", 32) + strings.ToLower(strings.TrimLeft(hexOf(n), ""))
	return s[len(s)-32:]
}

func hexOf(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 16 {
		b = append([]byte{digits[n%16]}, b...)
	}
	return string(b)
}

func fixedStamp() *stamp.Fixed { return &stamp.Fixed{Time: "2026-01-01T00:00:00"} }

func ctx(t *testing.T) context.Context { return t.Context() }

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
