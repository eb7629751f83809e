package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
)

// Config is everything a Server is built from. Store and Agents are
// required; every other zero value is a documented default.
type Config struct {
	// Store keeps the sessions, their state, transcript, event log, leases
	// and inputs. The server never closes it.
	Store session.Store
	// Agents are the agents sessions may talk to, by Agent.ID.
	Agents []Agent

	// Token, when set, is the bearer token every request but GET /health
	// must carry ("Authorization: Bearer <token>"), GET /metrics included;
	// "" requires none.
	Token string
	// Owner names this process in the store's leases ("": a fresh random
	// id). Give each replica its own, and keep it across restarts (a
	// replica id, or what makes the process unique on its host, like its
	// listen address): New closes the runs whose leases Owner still holds
	// at once, as its previous incarnation's, where another owner's dead
	// runs wait for their leases to expire. So no two live processes may
	// share one.
	Owner string
	// LeaseTTL is how long a run's lease lasts without renewal; a run
	// renews it every LeaseTTL/3 (0: 30s). A crashed run's session is
	// rescued within about one TTL.
	LeaseTTL time.Duration
	// RescueInterval is how often sessions left by a dead run are looked
	// for (0: LeaseTTL/2; negative: only once, at New).
	RescueInterval time.Duration
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
	// MaxStreamClients bounds the SSE clients of one session (0: 256);
	// one more is 429.
	MaxStreamClients int
	// MaxStreams bounds the SSE streams open at once in this process, over
	// every session and user (0: DefaultMaxStreams); one more is 503
	// {"detail"} with Retry-After, and a stream that ends frees its slot.
	// Each stream holds a connection, a goroutine and a 32 KiB write
	// buffer, and MaxStreamClients alone bounds none of it, since a user
	// may open many sessions.
	MaxStreams int
	// SubscriberBuffer is how many event batches (each at most 256
	// events) an SSE client may fall behind before the server cuts it
	// (0: 256). A cut client reconnects with Last-Event-ID and loses
	// nothing: the log has every event.
	SubscriberBuffer int
	// SubscriberBufferBytes bounds the bytes of the events an SSE client
	// may have queued; one more batch beyond it cuts the client, as a full
	// SubscriberBuffer does (0: 4 MiB). A client with nothing queued
	// always takes the next batch, however large. Frames are encoded once
	// and shared by every client of a session, so the slowest client
	// pins at most this much (or one batch) per session, not this much
	// per client.
	SubscriberBufferBytes int64
	// Version is reported by GET /health ("": "dev").
	Version string
	// Logger receives the server's errors and warnings (nil: slog.Default()).
	Logger *slog.Logger
}

// DefaultMaxStreams is Config.MaxStreams's zero value. Each stream holds
// a 32 KiB write buffer, net/http's read and write buffers and two
// goroutines' stacks: some 50 MiB for this many, and as many descriptors.
const DefaultMaxStreams = 1024

// Agent is one agent the server offers.
type Agent struct {
	// ID is what clients send as agent_id. Required, unique.
	ID string
	// Name is the agent's name (it authors its replies). Required.
	Name string
	// Description is shown by GET /agent/.
	Description string
	// New builds the agent for one run from the session's state (never
	// nil: a fresh state carries the session id). The server builds an
	// agent per run and drops it when the run ends, so a parked reply
	// holds nothing in memory: keep it cheap (a model client shared
	// between calls, a fresh toolkit).
	New func(st *state.AgentState) (*agent.Agent, error)
	// Derive, when set, makes this agent a base for the agents users
	// create over POST /agent/: it builds a run's agent as New does, with
	// the user's agent's Overrides in place of this agent's settings. nil:
	// the agent cannot be a base.
	Derive func(st *state.AgentState, o Overrides) (*agent.Agent, error)
}

// ErrConfig is wrapped by the configuration errors of New.
var ErrConfig = errors.New("server: invalid configuration")

// Server is the HTTP API over one store. Serve it as an http.Handler; end
// it with Shutdown or Close.
type Server struct {
	cfg    Config
	store  session.Store
	agents map[string]*Agent
	order  []*Agent
	log    *slog.Logger
	mux    *http.ServeMux
	hub    *hub

	// metrics are what GET /metrics reports (metrics.go).
	metrics *metrics

	// base is the parent context of every run; cancelling it interrupts
	// them all.
	base   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	runs    map[session.Key]*run
	runsWG  sync.WaitGroup
	bgWG    sync.WaitGroup
	bgStop  chan struct{}
	stopped chan struct{} // closed once Shutdown finished
}

// New validates cfg, rescues the sessions a dead run left behind, and
// returns the server.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: a store is required", ErrConfig)
	}
	if len(cfg.Agents) == 0 {
		return nil, fmt.Errorf("%w: at least one agent is required", ErrConfig)
	}
	s := &Server{cfg: cfg, store: cfg.Store, agents: map[string]*Agent{}, runs: map[session.Key]*run{},
		bgStop: make(chan struct{}), stopped: make(chan struct{})}
	for i := range cfg.Agents {
		a := &cfg.Agents[i]
		switch {
		case a.ID == "" || a.Name == "" || a.New == nil:
			return nil, fmt.Errorf("%w: agent %d needs an ID, a Name and New", ErrConfig, i)
		case s.agents[a.ID] != nil:
			return nil, fmt.Errorf("%w: agent id %q given twice", ErrConfig, a.ID)
		}
		s.agents[a.ID] = a
		s.order = append(s.order, a)
	}
	ownOwner := s.cfg.Owner != ""
	if !ownOwner {
		s.cfg.Owner = "server-" + stamp.Default.NewID()
	}
	if s.cfg.LeaseTTL <= 0 {
		s.cfg.LeaseTTL = 30 * time.Second
	}
	if s.cfg.RescueInterval == 0 {
		s.cfg.RescueInterval = s.cfg.LeaseTTL / 2
	}
	if s.cfg.Heartbeat <= 0 {
		s.cfg.Heartbeat = 15 * time.Second
	}
	if s.cfg.MaxBodyBytes <= 0 {
		s.cfg.MaxBodyBytes = 1 << 20
	}
	if s.cfg.MaxStreamClients <= 0 {
		s.cfg.MaxStreamClients = 256
	}
	if s.cfg.MaxStreams <= 0 {
		s.cfg.MaxStreams = DefaultMaxStreams
	}
	if s.cfg.SubscriberBuffer <= 0 {
		s.cfg.SubscriberBuffer = 256
	}
	if s.cfg.SubscriberBufferBytes <= 0 {
		s.cfg.SubscriberBufferBytes = 4 << 20
	}
	if s.cfg.Version == "" {
		s.cfg.Version = "dev"
	}
	s.log = cfg.Logger
	if s.log == nil {
		s.log = slog.Default()
	}
	s.hub = newHub(s.cfg.SubscriberBuffer)
	s.hub.budget = s.cfg.SubscriberBufferBytes
	s.hub.maxTotal = s.cfg.MaxStreams
	s.metrics = newMetrics()
	s.base, s.cancel = context.WithCancel(context.Background())
	s.routes()
	if ownOwner {
		s.rescueOwn(s.base)
	}
	s.rescueAll(s.base)
	if s.cfg.RescueInterval > 0 {
		s.bgWG.Add(1)
		go s.rescueLoop()
	}
	return s, nil
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Shutdown stops accepting runs, interrupts the running ones (each ends
// properly: every tool call answered, REPLY_END(interrupted), state and
// transcript saved, lease released), ends the SSE streams and waits for
// all of it or ctx. Parked replies stay parked: they hold nothing.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	first := !s.closed
	s.closed = true
	s.mu.Unlock()
	if first {
		close(s.bgStop)
		s.cancel()
		go func() {
			s.runsWG.Wait()
			s.bgWG.Wait()
			s.hub.closeAll()
			close(s.stopped)
		}()
	}
	select {
	case <-s.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close is Shutdown without a deadline.
func (s *Server) Close() error { return s.Shutdown(context.Background()) }

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// rescueLoop looks for sessions a dead run left behind until Shutdown.
func (s *Server) rescueLoop() {
	defer s.bgWG.Done()
	t := time.NewTicker(s.cfg.RescueInterval)
	defer t.Stop()
	for {
		select {
		case <-s.bgStop:
			return
		case <-t.C:
			s.rescueAll(s.base)
		}
	}
}
