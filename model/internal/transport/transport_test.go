package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
)

func collectSSE(t *testing.T, body string) []Event {
	t.Helper()
	var out []Event
	for ev, err := range SSE(strings.NewReader(body)) {
		if err != nil {
			t.Fatal(err)
		}
		ev.Data = append([]byte(nil), ev.Data...)
		out = append(out, ev)
	}
	return out
}

func TestSSEFraming(t *testing.T) {
	body := ": keep-alive\r\n\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\n" +
		"data: line1\ndata: line2\nid: 7\n\n" +
		"data: [DONE]" // no trailing blank line: flushed at EOF
	got := collectSSE(t, body)
	if len(got) != 3 {
		t.Fatalf("got %d events: %+v", len(got), got)
	}
	if got[0].Name != "message_start" || string(got[0].Data) != `{"a":1}` {
		t.Errorf("event 0 = %q %q", got[0].Name, got[0].Data)
	}
	if string(got[1].Data) != "line1\nline2" || got[1].ID != "7" {
		t.Errorf("event 1 = %q id %q", got[1].Data, got[1].ID)
	}
	if string(got[2].Data) != "[DONE]" {
		t.Errorf("event 2 = %q", got[2].Data)
	}
}

func TestSSELongLine(t *testing.T) {
	big := strings.Repeat("A", 1<<20)
	got := collectSSE(t, "data: "+big+"\n\n")
	if len(got) != 1 || len(got[0].Data) != len(big) {
		t.Fatalf("long line lost: %d events", len(got))
	}
}

func TestLinesSkipsBlank(t *testing.T) {
	var n int
	for line, err := range Lines(strings.NewReader("{\"a\":1}\n\n  \n{\"b\":2}")) {
		if err != nil {
			t.Fatal(err)
		}
		if line[0] != '{' {
			t.Fatalf("line %q", line)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("got %d lines, want 2", n)
	}
}

func noSleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

func TestDoRetriesRateLimitHonouringRetryAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(429)
			w.Write([]byte(`{"error":{"message":"slow down"}}`))
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var waited []time.Duration
	p := Policy{MaxRetries: 2, Sleep: func(ctx context.Context, d time.Duration) error { waited = append(waited, d); return nil }}
	resp, err := Do(context.Background(), srv.Client(), Request{Provider: "x", URL: srv.URL}, p)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls.Load() != 2 || len(waited) != 1 || waited[0] != 2*time.Second {
		t.Fatalf("calls=%d waited=%v", calls.Load(), waited)
	}
}

func TestDoClassifiesWithoutRetrying(t *testing.T) {
	cases := []struct {
		status int
		want   event.ErrorType
		tries  int32
	}{
		{401, event.ErrAuthentication, 1},
		{403, event.ErrPermission, 1},
		{400, event.ErrInvalidRequest, 1},
		{500, event.ErrUpstream, 3},
		{429, event.ErrRateLimit, 3},
		// The SDKs' (and the spec's) retry set: 408 and 409 are the 4xx
		// besides 429 worth another attempt.
		{408, event.ErrConnection, 3},
		{409, event.ErrInvalidRequest, 3},
		{404, event.ErrInvalidRequest, 1},
	}
	for _, c := range cases {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(c.status)
			w.Write([]byte(`{"error":{"message":"provider says no"}}`))
		}))
		_, err := Do(context.Background(), srv.Client(), Request{Provider: "p", URL: srv.URL}, Policy{MaxRetries: 2, Sleep: noSleep})
		srv.Close()
		var me *model.Error
		if !errors.As(err, &me) || me.Type != c.want || me.Message != "provider says no" || me.Status != c.status {
			t.Errorf("%d: got %v", c.status, err)
		}
		if calls.Load() != c.tries {
			t.Errorf("%d: %d attempts, want %d", c.status, calls.Load(), c.tries)
		}
	}
}

func TestDoRetriesConnectionResetBeforeFirstByte(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.(*net.TCPConn).SetLinger(0)
				conn.Close() // reset, nothing written
			}
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	resp, err := Do(context.Background(), srv.Client(), Request{URL: srv.URL}, Policy{MaxRetries: 1, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls.Load() != 2 {
		t.Fatalf("%d attempts, want 2", calls.Load())
	}
}

func TestDoCancelledDuringBackoff(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p := Policy{MaxRetries: 5, Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return sleep(ctx, d) }}
	_, err := Do(ctx, srv.Client(), Request{URL: srv.URL}, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestBackoffBounds(t *testing.T) {
	p := Policy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for attempt := 0; attempt < 20; attempt++ {
		for i := 0; i < 50; i++ {
			d := Backoff(p, attempt, 0)
			limit := min(100*time.Millisecond<<attempt, time.Second)
			if d <= 0 || d > limit {
				t.Fatalf("attempt %d: %v outside (0, %v]", attempt, d, limit)
			}
		}
	}
	if d := Backoff(p, 0, 5*time.Second); d != time.Second {
		t.Fatalf("Retry-After must be capped at MaxDelay, got %v", d)
	}
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d := RetryAfter("3", now); d != 3*time.Second {
		t.Errorf("seconds: %v", d)
	}
	if d := RetryAfter(now.Add(10*time.Second).Format(http.TimeFormat), now); d != 10*time.Second {
		t.Errorf("date: %v", d)
	}
	if d := RetryAfter("soon", now); d != 0 {
		t.Errorf("garbage: %v", d)
	}
}

func TestErrorMessageShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"a","type":"x"}}`: "a",
		`{"error":"b"}`:                        "b",
		`{"message":"c"}`:                      "c",
		"  plain text  ":                       "plain text",
	} {
		if got := ErrorMessage([]byte(body)); got != want {
			t.Errorf("%s: got %q want %q", body, got, want)
		}
	}
}

// A redirect to another origin must not carry the credentials: Go's client
// only strips Authorization (and keeps it for the same host name on another
// port), while providers' keys travel in x-api-key and x-goog-api-key.
func TestDoRedirectDropsCredentialsAcrossOrigins(t *testing.T) {
	var got http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Write([]byte("ok"))
	}))
	defer other.Close()
	var sameHops atomic.Int32
	var sameGot http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		case "/here":
			sameHops.Add(1)
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		default:
			sameGot = r.Header.Clone()
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	h := http.Header{}
	h.Set("Authorization", "Bearer sk-secret")
	h.Set("X-Api-Key", "sk-ant-secret")
	h.Set("X-Goog-Api-Key", "AIza-secret")
	h.Set("Api-Key", "azure-secret")
	h.Set("X-Trace", "kept")
	for _, path := range []string{"/away", "/here"} {
		resp, err := Do(context.Background(), srv.Client(), Request{URL: srv.URL + path, Header: h, Body: []byte("{}")}, Policy{Sleep: noSleep})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, k := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key"} {
		if v := got.Get(k); v != "" {
			t.Errorf("cross-origin redirect leaked %s: %q", k, v)
		}
		if sameGot.Get(k) == "" {
			t.Errorf("same-origin redirect lost %s", k)
		}
	}
	if got.Get("X-Trace") != "kept" || sameHops.Load() != 1 {
		t.Errorf("headers %v, hops %d", got, sameHops.Load())
	}
}

func TestDoDoesNotRetryMisconfiguration(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer tlsSrv.Close()
	for name, url := range map[string]string{
		"no scheme":          "127.0.0.1:1/v1/chat",
		"untrusted TLS cert": tlsSrv.URL, // http.DefaultClient does not trust the test CA
	} {
		var sleeps int
		p := Policy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { sleeps++; return nil }}
		_, err := Do(context.Background(), http.DefaultClient, Request{Provider: "p", URL: url}, p)
		var me *model.Error
		if !errors.As(err, &me) || me.Type != event.ErrSetup || sleeps != 0 {
			t.Errorf("%s: got %v after %d retries, want a setup error and no retry", name, err, sleeps)
		}
	}
}
