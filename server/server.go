package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentscope-go/agentscope/engine"
)

// Config is everything a Server is built from. Engine.Store and
// Engine.Agents are required; every other zero value is a documented
// default.
type Config struct {
	// Engine configures the run engine the server is a transport of: the
	// store, the agents, leases, rescue and the followers' bounds
	// (engine.Config). Its Logger defaults to Logger.
	Engine engine.Config

	// Token, when set, is the bearer token every request but GET /health
	// and GET /ready must carry ("Authorization: Bearer <token>", the scheme in any
	// case), GET /metrics included; "" requires none.
	Token string
	// Heartbeat is the silence after which an SSE stream gets a ":"
	// comment (0: 15s).
	Heartbeat time.Duration
	// MaxBodyBytes bounds a request body (0: 1 MiB); larger is 413. It
	// is also the bound on a message: every message a client gives
	// arrives in one POST /chat/ body (a Msg, a list of them, or the
	// results of an EXTERNAL_EXECUTION_RESULT), so a separate per-message
	// cap would only split one body's budget between messages the run
	// stores and sends to the model together anyway. What the server
	// adds to a session itself, replies and tool results, is bounded by
	// the model's output limit and by the tools.
	MaxBodyBytes int64
	// Version is reported by GET /health ("": "dev").
	Version string
	// Logger receives the server's errors and warnings (nil: slog.Default()).
	Logger *slog.Logger
}

// ErrConfig is wrapped by the configuration errors of New.
var ErrConfig = errors.New("server: invalid configuration")

// Server is the HTTP API over one run engine. Serve it as an
// http.Handler; end it with Shutdown or Close.
type Server struct {
	cfg Config
	eng *engine.Engine
	log *slog.Logger
	mux *http.ServeMux
}

// New builds the run engine of cfg.Engine (which rescues the sessions a
// dead run left behind) and returns the server over it.
func New(cfg Config) (*Server, error) {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Engine.Logger == nil {
		cfg.Engine.Logger = cfg.Logger
	}
	eng, err := engine.New(cfg.Engine)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s := &Server{cfg: cfg, eng: eng, log: cfg.Logger}
	s.routes()
	return s, nil
}

// Engine is the run engine the server serves: other transports in the
// same process share it.
func (s *Server) Engine() *engine.Engine { return s.eng }

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Drain stops taking new runs and streams (503 with Retry-After; GET
// /ready answers 503) and waits for the runs in progress to end, or ctx
// (engine.Engine.Drain). Shutdown after it interrupts what is left.
func (s *Server) Drain(ctx context.Context) error { return s.eng.Drain(ctx) }

// Shutdown shuts the engine down (engine.Engine.Shutdown): running replies
// are interrupted properly, the streams end, parked replies stay parked.
func (s *Server) Shutdown(ctx context.Context) error { return s.eng.Shutdown(ctx) }

// Close is Shutdown without a deadline.
func (s *Server) Close() error { return s.Shutdown(context.Background()) }
