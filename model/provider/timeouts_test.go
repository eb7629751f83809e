package provider_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/message"
	"github.com/agentscope-go/agentscope/model"
	"github.com/agentscope-go/agentscope/model/provider"
)

// providerURIs are one URI per adapter, given a server's root URL.
func providerURIs(root string) []string {
	return []string{
		"openai:gpt-4.1@" + root + "/v1",
		"openai-responses:o4-mini@" + root + "/v1",
		"anthropic:claude-sonnet-4-5@" + root,
		"gemini:gemini-2.5-flash@" + root,
		"ollama:qwen3@" + root,
	}
}

var keys = env("OPENAI_API_KEY", "k", "ANTHROPIC_API_KEY", "k", "GOOGLE_API_KEY", "k")

func stream(ctx context.Context, m model.ChatModel) error {
	for _, err := range m.Stream(ctx, &model.Request{Messages: []*message.Msg{message.UserText("", "hi")}}) {
		if err != nil {
			return err
		}
	}
	return nil
}

// WithTimeouts reaches every adapter: a server that sends its headers and
// then nothing ends each call with a connection error instead of a hang.
func TestWithTimeoutsReachesEveryAdapter(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "\n") // a blank line: SSE and NDJSON readers skip it
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	for _, uri := range providerURIs(srv.URL) {
		t.Run(strings.SplitN(uri, ":", 2)[0], func(t *testing.T) {
			m, err := provider.New(uri, keys, provider.WithTimeouts(model.Timeouts{Idle: 50 * time.Millisecond}))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err = stream(ctx, m)
			var me *model.Error
			var to interface{ Timeout() bool }
			if !errors.As(err, &me) || me.Type != event.ErrConnection || !errors.As(err, &to) || !to.Timeout() || ctx.Err() != nil {
				t.Fatalf("got %v (ctx %v), want a connection error from the idle timeout", err, ctx.Err())
			}
		})
	}
}

// WithLogger reaches every adapter: its retry warnings go there, not to
// slog.Default, and the error counts every request.
func TestWithLoggerReachesEveryAdapter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "0.001")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"overloaded"}}`)
	}))
	defer srv.Close()
	var def bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, nil)))
	defer slog.SetDefault(old)
	for _, uri := range providerURIs(srv.URL) {
		t.Run(strings.SplitN(uri, ":", 2)[0], func(t *testing.T) {
			calls.Store(0)
			var mine bytes.Buffer
			m, err := provider.New(uri, keys, provider.WithLogger(slog.New(slog.NewTextHandler(&mine, nil))))
			if err != nil {
				t.Fatal(err)
			}
			err = stream(t.Context(), m)
			var me *model.Error
			if !errors.As(err, &me) || me.Type != event.ErrUpstream || me.Attempts != int(calls.Load()) || me.Attempts < 2 {
				t.Fatalf("got %v after %d requests (Attempts %d)", err, calls.Load(), me.Attempts)
			}
			if n := strings.Count(mine.String(), "retrying"); n != me.Attempts-1 {
				t.Errorf("%d retry warnings for %d attempts:\n%s", n, me.Attempts, mine.String())
			}
		})
	}
	if def.Len() != 0 {
		t.Errorf("slog.Default got %q", def.String())
	}
}
