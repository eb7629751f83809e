package wiretest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/event"
	"github.com/agentscope-go/agentscope/model"
)

// ErrorPaths describes an adapter for RunErrorPaths.
type ErrorPaths struct {
	ContentType string
	// OK is a complete response body; Partial a prefix of one that yields
	// at least one chunk.
	OK, Partial []byte
	// ErrorBody is the provider's JSON error document for a status, with
	// Message the text the adapter must keep from it.
	ErrorBody func(status int) string
	Message   string
	Request   *model.Request
	// New builds the adapter against baseURL with 2 retries, waiting
	// through sleep instead of the clock.
	New func(baseURL string, sleep func(context.Context, time.Duration) error) model.ChatModel
}

// RunErrorPaths checks the failure behaviour every adapter shares: 401 is
// final, 429 honours Retry-After, 500 and a reset before the first byte
// are retried, a reset after it is not.
func RunErrorPaths(t *testing.T, p ErrorPaths) {
	stream := func(t *testing.T, srv *Server) ([]model.Chunk, error, []time.Duration) {
		var waited []time.Duration
		m := p.New(srv.URL, func(ctx context.Context, d time.Duration) error {
			waited = append(waited, d)
			return ctx.Err()
		})
		chunks, err := Collect(m.Stream(context.Background(), p.Request))
		return chunks, err, waited
	}
	okChunks := func(t *testing.T) int {
		srv := NewServer(t, Body(p.ContentType, p.OK))
		chunks, err, _ := stream(t, srv)
		if err != nil || len(chunks) == 0 {
			t.Fatalf("the OK body fails: %v", err)
		}
		return len(chunks)
	}

	t.Run("401 is final and keeps the provider's message", func(t *testing.T) {
		srv := NewServer(t, Status(401, p.ErrorBody(401)))
		_, err, waited := stream(t, srv)
		var me *model.Error
		if !errors.As(err, &me) || me.Type != event.ErrAuthentication || me.Message != p.Message || me.Status != 401 {
			t.Fatalf("err = %v", err)
		}
		if n := len(srv.Requests()); n != 1 || len(waited) != 0 {
			t.Fatalf("%d requests, waits %v", n, waited)
		}
	})
	t.Run("429 honours Retry-After", func(t *testing.T) {
		want := okChunks(t)
		srv := NewServer(t, Status(429, p.ErrorBody(429), "Retry-After", "7"), Body(p.ContentType, p.OK))
		chunks, err, waited := stream(t, srv)
		if err != nil {
			t.Fatal(err)
		}
		if len(waited) != 1 || waited[0] != 7*time.Second || len(srv.Requests()) != 2 || len(chunks) != want {
			t.Fatalf("waits %v, %d requests, %d chunks", waited, len(srv.Requests()), len(chunks))
		}
	})
	t.Run("429 until the retries run out", func(t *testing.T) {
		srv := NewServer(t, Status(429, p.ErrorBody(429), "Retry-After", "1"))
		_, err, waited := stream(t, srv)
		var me *model.Error
		if !errors.As(err, &me) || me.Type != event.ErrRateLimit || me.RetryAfter != time.Second || me.Message != p.Message {
			t.Fatalf("err = %v", err)
		}
		if len(srv.Requests()) != 3 || len(waited) != 2 {
			t.Fatalf("%d requests, waits %v", len(srv.Requests()), waited)
		}
	})
	t.Run("500 then success", func(t *testing.T) {
		want := okChunks(t)
		srv := NewServer(t, Status(500, p.ErrorBody(500)), Body(p.ContentType, p.OK))
		chunks, err, waited := stream(t, srv)
		if err != nil || len(chunks) != want || len(srv.Requests()) != 2 || len(waited) != 1 {
			t.Fatalf("err %v, %d chunks, %d requests, waits %v", err, len(chunks), len(srv.Requests()), waited)
		}
	})
	t.Run("reset before the first byte is retried", func(t *testing.T) {
		want := okChunks(t)
		srv := NewServer(t, Reset("", nil), Body(p.ContentType, p.OK))
		chunks, err, _ := stream(t, srv)
		if err != nil || len(chunks) != want || len(srv.Requests()) != 2 {
			t.Fatalf("err %v, %d chunks, %d requests", err, len(chunks), len(srv.Requests()))
		}
	})
	t.Run("reset after the first byte is not retried", func(t *testing.T) {
		srv := NewServer(t, Reset(p.ContentType, p.Partial), Body(p.ContentType, p.OK))
		chunks, err, _ := stream(t, srv)
		var me *model.Error
		if !errors.As(err, &me) || me.Type != event.ErrConnection {
			t.Fatalf("err = %v", err)
		}
		if len(srv.Requests()) != 1 || len(chunks) == 0 {
			t.Fatalf("%d requests, %d chunks before the reset", len(srv.Requests()), len(chunks))
		}
	})
}
