package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentscope-go/agentscope/agent"
	"github.com/agentscope-go/agentscope/session"
	"github.com/agentscope-go/agentscope/stamp"
	"github.com/agentscope-go/agentscope/state"
)

// Config is everything an Engine is built from. Store and Agents are
// required; every other zero value is a documented default.
type Config struct {
	// Store keeps the sessions, their state, transcript, event log, leases
	// and inputs. The engine never closes it.
	Store session.Store
	// Agents are the agents sessions may talk to, by Agent.ID.
	Agents []Agent

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
	// MaxStreamClients bounds the followers of one session (0: 256); one
	// more is ErrTooMany.
	MaxStreamClients int
	// MaxStreams bounds the followers open at once in this process, over
	// every session and user (0: DefaultMaxStreams); one more is
	// ErrUnavailable with a RetryAfter, and a follower that ends frees its
	// slot. Each holds a connection, a goroutine and buffers in its
	// transport, and MaxStreamClients alone bounds none of it, since a
	// user may open many sessions.
	MaxStreams int
	// SubscriberBuffer is how many event batches (each at most 256
	// events) a follower may fall behind before the engine cuts it (0:
	// 256). A cut follower reconnects from its last sequence and loses
	// nothing: the log has every event.
	SubscriberBuffer int
	// SubscriberBufferBytes bounds the bytes of the events a follower may
	// have queued; one more batch beyond it cuts the follower, as a full
	// SubscriberBuffer does (0: 4 MiB). A follower with nothing queued
	// always takes the next batch, however large. Batches are shared by
	// every follower of a session, so the slowest pins at most this much
	// (or one batch) per session, not this much per follower.
	SubscriberBufferBytes int64
	// StateCacheBytes bounds the decoded states the engine keeps of the
	// sessions its runs ended (0: DefaultStateCacheBytes; negative: none),
	// counted by their stored JSON. A kept state is checked against the
	// store's version at each run's start, so it is never stale, and only
	// states of at least 16 KiB are kept: it is what makes a long
	// session's next run start as fast as a short one's.
	StateCacheBytes int64
	// Logger receives the engine's errors and warnings (nil: slog.Default()).
	Logger *slog.Logger
}

// DefaultMaxStreams is Config.MaxStreams's zero value. A stream of the
// native transport holds a 32 KiB write buffer, net/http's read and write
// buffers and two goroutines' stacks: some 50 MiB for this many, and as
// many descriptors.
const DefaultMaxStreams = 1024

// Agent is one agent the engine offers.
type Agent struct {
	// ID is what clients send as agent_id. Required, unique.
	ID string
	// Name is the agent's name (it authors its replies). Required.
	Name string
	// Description is shown by the agent list.
	Description string
	// New builds the agent for one run from the session's state (never
	// nil: a fresh state carries the session id). The engine builds an
	// agent per run and drops it when the run ends, so a parked reply
	// holds nothing in memory: keep it cheap (a model client shared
	// between calls, a fresh toolkit).
	New func(st *state.AgentState) (*agent.Agent, error)
	// Derive, when set, makes this agent a base for the agents users
	// create (CreateAgent): it builds a run's agent as New does, with the
	// user's agent's Overrides in place of this agent's settings. nil: the
	// agent cannot be a base.
	Derive func(st *state.AgentState, o Overrides) (*agent.Agent, error)
}

// Overrides are the settings of an agent a user created, applied to the
// configured agent it is based on. A zero field keeps the base agent's
// setting.
type Overrides struct {
	// Name authors the agent's replies (never empty).
	Name string
	// SystemPrompt replaces the base agent's system prompt.
	SystemPrompt string
	// MaxIters replaces the base agent's reasoning-acting rounds per reply.
	MaxIters int
}

// ErrConfig is wrapped by the configuration errors of New.
var ErrConfig = errors.New("engine: invalid configuration")

// Engine runs the sessions of one store: their runs, inputs, event log,
// leases and followers, and the rescue of runs that died. It knows no
// transport: every operation takes typed values and returns typed errors.
type Engine struct {
	cfg    Config
	store  session.Store
	agents map[string]*Agent
	order  []*Agent
	log    *slog.Logger
	hub    *hub
	hot    *hotStates

	// metrics are what WriteMetrics reports (metrics.go).
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

	// draining (under mu) says Drain was called: no new runs. notifier
	// is the store's, when it has one (replicas.go).
	draining bool
	notifier session.Notifier
}

// New validates cfg, rescues the sessions a dead run left behind, and
// returns the engine.
func New(cfg Config) (*Engine, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: a store is required", ErrConfig)
	}
	if len(cfg.Agents) == 0 {
		return nil, fmt.Errorf("%w: at least one agent is required", ErrConfig)
	}
	e := &Engine{cfg: cfg, store: cfg.Store, agents: map[string]*Agent{}, runs: map[session.Key]*run{},
		bgStop: make(chan struct{}), stopped: make(chan struct{})}
	for i := range cfg.Agents {
		a := &cfg.Agents[i]
		switch {
		case a.ID == "" || a.Name == "" || a.New == nil:
			return nil, fmt.Errorf("%w: agent %d needs an ID, a Name and New", ErrConfig, i)
		case e.agents[a.ID] != nil:
			return nil, fmt.Errorf("%w: agent id %q given twice", ErrConfig, a.ID)
		}
		e.agents[a.ID] = a
		e.order = append(e.order, a)
	}
	ownOwner := e.cfg.Owner != ""
	if !ownOwner {
		e.cfg.Owner = "engine-" + stamp.Default.NewID()
	}
	if e.cfg.LeaseTTL <= 0 {
		e.cfg.LeaseTTL = 30 * time.Second
	}
	if e.cfg.RescueInterval == 0 {
		e.cfg.RescueInterval = e.cfg.LeaseTTL / 2
	}
	if e.cfg.MaxStreamClients <= 0 {
		e.cfg.MaxStreamClients = 256
	}
	if e.cfg.MaxStreams <= 0 {
		e.cfg.MaxStreams = DefaultMaxStreams
	}
	if e.cfg.SubscriberBuffer <= 0 {
		e.cfg.SubscriberBuffer = 256
	}
	if e.cfg.SubscriberBufferBytes <= 0 {
		e.cfg.SubscriberBufferBytes = 4 << 20
	}
	e.log = cfg.Logger
	if e.log == nil {
		e.log = slog.Default()
	}
	if e.cfg.StateCacheBytes == 0 {
		e.cfg.StateCacheBytes = DefaultStateCacheBytes
	}
	e.hot = newHotStates(e.cfg.StateCacheBytes)
	e.hub = newHub(e.cfg.SubscriberBuffer)
	e.hub.budget = e.cfg.SubscriberBufferBytes
	e.hub.maxTotal = e.cfg.MaxStreams
	e.metrics = newMetrics()
	if ownOwner {
		e.metrics.replica = e.cfg.Owner
	}
	e.base, e.cancel = context.WithCancel(context.Background())
	e.listen()
	if ownOwner {
		e.rescueOwn(e.base)
	}
	e.rescueAll(e.base)
	if e.cfg.RescueInterval > 0 {
		e.bgWG.Add(1)
		go e.rescueLoop()
	}
	return e, nil
}

// Shutdown stops accepting runs, interrupts the running ones (each ends
// properly: every tool call answered, REPLY_END(interrupted), state and
// transcript saved, lease released), ends the followers and waits for all
// of it or ctx. Parked replies stay parked: they hold nothing.
func (e *Engine) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	first := !e.closed
	e.closed = true
	e.mu.Unlock()
	if first {
		close(e.bgStop)
		e.cancel()
		go func() {
			e.runsWG.Wait()
			e.bgWG.Wait()
			e.hub.closeAll()
			close(e.stopped)
		}()
	}
	select {
	case <-e.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Closed reports whether Shutdown was called.
func (e *Engine) Closed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// Store is the store the engine runs on.
func (e *Engine) Store() session.Store { return e.store }

// rescueLoop looks for sessions a dead run left behind until Shutdown.
func (e *Engine) rescueLoop() {
	defer e.bgWG.Done()
	t := time.NewTicker(e.cfg.RescueInterval)
	defer t.Stop()
	for {
		select {
		case <-e.bgStop:
			return
		case <-t.C:
			if !e.Draining() {
				e.rescueAll(e.base)
			}
		}
	}
}
