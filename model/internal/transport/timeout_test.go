package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
)

// safety bounds every call in these tests: without the timeouts under test
// the calls would hang, so a failure shows as this deadline instead.
const safety = 10 * time.Second

// hangingServer answers each request by calling head (which may write
// headers and some data), then blocks until the client goes away or the
// test ends.
func hangingServer(t *testing.T, head func(w http.ResponseWriter)) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if head != nil {
			head(w)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv
}

func noLeaks(t *testing.T) {
	t.Helper()
	opts := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opts) })
}

func asTimeout(t *testing.T, err error, phase string) *model.Error {
	t.Helper()
	var me *model.Error
	var te *TimeoutError
	if !errors.As(err, &me) || me.Type != event.ErrConnection || !errors.As(err, &te) || te.Phase != phase {
		t.Fatalf("got %v, want a connection error from a %s timeout", err, phase)
	}
	return me
}

func TestDoFirstByteTimeout(t *testing.T) {
	noLeaks(t)
	srv := hangingServer(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), safety)
	defer cancel()
	var calls atomic.Int32
	counting := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return srv.Client().Transport.RoundTrip(r)
	})}
	p := Policy{MaxRetries: 2, Sleep: noSleep, Timeouts: model.Timeouts{FirstByte: 50 * time.Millisecond}}
	_, err := Do(ctx, counting, Request{Provider: "p", URL: srv.URL}, p)
	me := asTimeout(t, err, PhaseFirstByte)
	// The caller's client is the one used, and the timeout is retried
	// like any connection failure.
	if calls.Load() != 3 || me.Attempts != 3 || ctx.Err() != nil {
		t.Fatalf("%d requests, Attempts %d, ctx %v", calls.Load(), me.Attempts, ctx.Err())
	}
	if !strings.Contains(me.Error(), "p: connection: no response from the server within 50ms") {
		t.Errorf("message %q", me.Error())
	}
	srv.Client().CloseIdleConnections()
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A server that sends its headers and one event, then goes silent, ends
// the stream with an idle timeout rather than hanging the reader.
func TestDoIdleTimeoutWhileStreaming(t *testing.T) {
	noLeaks(t)
	srv := hangingServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"n\":1}\n\n")
	})
	defer srv.Client().CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), safety)
	defer cancel()
	p := Policy{Sleep: noSleep, Timeouts: model.Timeouts{Idle: 50 * time.Millisecond}}
	resp, err := Do(ctx, srv.Client(), Request{Provider: "p", URL: srv.URL}, p)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []string
	var streamErr error
	for ev, err := range SSE(resp.Body) {
		if err != nil {
			streamErr = StreamError("p", err)
			break
		}
		got = append(got, string(ev.Data))
	}
	if len(got) != 1 || got[0] != `{"n":1}` {
		t.Fatalf("events %q", got)
	}
	me := asTimeout(t, streamErr, PhaseIdle)
	if ctx.Err() != nil || !strings.Contains(me.Error(), "no data from the server for 50ms") {
		t.Fatalf("got %v (ctx %v)", me, ctx.Err())
	}
}

// The idle clock runs only while the reader waits for the server: a
// consumer that takes its time between reads is not cut off.
func TestIdleTimeoutIgnoresSlowConsumer(t *testing.T) {
	noLeaks(t)
	// The server sends the next byte only when the consumer asks, after
	// it has dawdled for longer than the idle limit.
	next := make(chan struct{}, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, b := range []string{"a", "b", "c"} {
			io.WriteString(w, b)
			w.(http.Flusher).Flush()
			select {
			case <-next:
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	idle := 20 * time.Millisecond
	resp, err := Do(t.Context(), srv.Client(), Request{URL: srv.URL}, Policy{Timeouts: model.Timeouts{Idle: idle}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []byte
	b := make([]byte, 1)
	for len(got) < 3 {
		n, err := resp.Body.Read(b)
		got = append(got, b[:n]...)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		time.Sleep(3 * idle)
		next <- struct{}{}
	}
	if string(got) != "abc" {
		t.Fatalf("read %q", got)
	}
}

// A server that accepts the connection and never completes the TLS
// handshake is cut off by the connect timeout of the adapter's own client.
func TestDoConnectTimeout(t *testing.T) {
	noLeaks(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	})
	defer func() {
		ln.Close()
		wg.Wait()
		for _, c := range conns {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), safety)
	defer cancel()
	to := model.Timeouts{Connect: 50 * time.Millisecond}
	_, err = Do(ctx, nil, Request{Provider: "p", URL: "https://" + ln.Addr().String()}, Policy{Sleep: noSleep, Timeouts: to})
	var me *model.Error
	if !errors.As(err, &me) || me.Type != event.ErrConnection || !strings.Contains(err.Error(), "TLS handshake timeout") || ctx.Err() != nil {
		t.Fatalf("got %v (ctx %v), want a connection error from the handshake timeout", err, ctx.Err())
	}
	if Client(nil, to) != Client(nil, to) {
		t.Error("models with the same connect timeout do not share a client")
	}
	if Client(nil, model.Timeouts{Connect: -1}) == Client(nil, model.Timeouts{}) {
		t.Error("a negative Connect (no limit) got the default client")
	}
	if hc := (&http.Client{}); Client(hc, to) != hc {
		t.Error("a caller's client was replaced")
	}
}

func TestTimeoutDefaults(t *testing.T) {
	got := model.Timeouts{FirstByte: -1, Idle: time.Second}.WithDefaults()
	want := model.Timeouts{Connect: model.DefaultConnectTimeout, FirstByte: 0, Idle: time.Second}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// Retry warnings go to the caller's logger, not slog.Default, and the
// final error counts every request.
func TestDoLogsRetriesToPolicyLogger(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(503)
		io.WriteString(w, `{"error":{"message":"overloaded"}}`)
	}))
	defer srv.Close()
	var def, mine bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, nil)))
	defer slog.SetDefault(old)
	p := Policy{MaxRetries: 3, Sleep: noSleep, Logger: slog.New(slog.NewTextHandler(&mine, nil))}
	_, err := Do(t.Context(), srv.Client(), Request{Provider: "p", URL: srv.URL}, p)
	var me *model.Error
	if !errors.As(err, &me) || me.Attempts != 4 || calls.Load() != 4 {
		t.Fatalf("got %v after %d requests (Attempts %d)", err, calls.Load(), me.Attempts)
	}
	if def.Len() != 0 {
		t.Errorf("slog.Default got %q", def.String())
	}
	if n := strings.Count(mine.String(), "retrying"); n != 3 {
		t.Errorf("policy logger got %d retry warnings:\n%s", n, mine.String())
	}
	for i := 1; i <= 3; i++ {
		if !strings.Contains(mine.String(), fmt.Sprintf("attempt=%d", i)) {
			t.Errorf("no warning for attempt %d", i)
		}
	}
}
