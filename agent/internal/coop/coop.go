package coop

import (
	"context"
	"errors"
	"iter"
	"sync"
	"time"
)

// DefaultPreempt is the preemption period P: how long a call's tool may
// take to produce its next chunk (or return) before the call counts as
// waiting and its siblings run.
const DefaultPreempt = 20 * time.Millisecond

type slotKey struct{}

// slot is one participant of a batch: a worker (one tool call) or the
// consumer that drains the batch's items. A worker's slot is used by
// several goroutines (the worker, its tool, its preemption timer), which is
// why workers wait on the group's condition variable and re-check, rather
// than take a token.
type slot struct {
	wake    chan struct{} // the consumer's grant notifications
	waiting bool          // in the ready queue
	inTool  bool          // its worker waits for the tool's next chunk
	pulls   int           // how often the worker asked its tool for a chunk
	done    bool
	g       *group
	// ctx is a worker's context. Once it is cancelled the call keeps its
	// turn until it finishes: its tool is about to report the interruption,
	// and the interrupted calls must report in call order.
	ctx context.Context
	// rearm restarts a worker's preemption timer when [Yield] gives its
	// call the turn back while its tool runs (called with the group's mu
	// held).
	rearm func()
	// yielding: the call's tool is in [Yield]; its preemption timer must
	// not take back the turn Yield waits for.
	yielding bool
}

func (s *slot) cancelled() bool { return s.ctx != nil && s.ctx.Err() != nil }

// group is the turn (a baton) and the FIFO ready queue. All fields are
// guarded by mu.
type group struct {
	mu       sync.Mutex
	cond     *sync.Cond // broadcast on every change a waiter may look for
	holder   *slot
	consumer *slot
	ready    []*slot
	granted  time.Time
	closed   bool
}

// want puts s in line for the turn. It reports true when s got the turn at
// once (nobody holds it and nobody waits).
func (g *group) want(s *slot) bool {
	if g.holder == s {
		return true
	}
	if g.holder == nil && len(g.ready) == 0 {
		g.holder, g.granted = s, time.Now()
		return true
	}
	if !s.waiting {
		s.waiting = true
		g.ready = append(g.ready, s)
	}
	return false
}

// wantFor queues s on behalf of another goroutine, waking s if it got the
// turn at once.
func (g *group) wantFor(s *slot) {
	if g.want(s) {
		notify(s)
	}
}

// next hands the turn to the first slot in line, or frees it.
func (g *group) next() {
	if len(g.ready) == 0 {
		g.holder = nil
		g.cond.Broadcast()
		return
	}
	s := g.ready[0]
	g.ready[0] = nil
	g.ready = g.ready[1:]
	s.waiting = false
	g.holder, g.granted = s, time.Now()
	notify(s)
	g.cond.Broadcast()
}

func notify(s *slot) {
	if s.wake == nil {
		return
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// acquire blocks until s holds the turn. It reports false once the batch
// is closed. Only workers call it (the consumer waits in waitTurn).
func (g *group) acquire(s *slot) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if g.closed {
			return false
		}
		if g.want(s) {
			return true
		}
		g.cond.Wait()
	}
}

func (g *group) close() {
	g.mu.Lock()
	g.closed = true
	g.holder = nil
	for _, s := range g.ready {
		s.waiting = false
	}
	g.ready = nil
	g.cond.Broadcast()
	g.mu.Unlock()
}

// Lockstep makes a tool's chunk stream advance only as fast as the call's
// worker consumes it: after each chunk it waits until the worker asks for
// the next one, as an async generator stays paused at its yield. A tool
// running on its own goroutine (as tool.Runner runs it) would otherwise run
// ahead into its next segment while the worker still emits the previous
// chunk's events. Outside a batch (ctx not from [Worker.ToolContext]) it
// returns seq unchanged.
func Lockstep[C any](ctx context.Context, seq iter.Seq2[C, error]) iter.Seq2[C, error] {
	s, _ := ctx.Value(slotKey{}).(*slot)
	if s == nil {
		return seq
	}
	return func(yield func(C, error) bool) {
		g := s.g
		// A caller that stops consuming cancels ctx; wake the wait below.
		stop := context.AfterFunc(ctx, func() {
			g.mu.Lock()
			g.cond.Broadcast()
			g.mu.Unlock()
		})
		defer stop()
		g.mu.Lock()
		base := s.pulls
		g.mu.Unlock()
		sent := 0
		for c, err := range seq {
			if !yield(c, err) {
				return
			}
			sent++
			g.mu.Lock()
			for s.pulls < base+sent && !s.done && !g.closed && ctx.Err() == nil {
				g.cond.Wait()
			}
			g.mu.Unlock()
		}
	}
}

// Yield gives the turn of the call whose tool runs under ctx to the calls
// (and the consumer) waiting for it, and returns once the call holds it
// again: asyncio.sleep(0), which puts the task at the back of the ready
// queue. The engine cannot see a plain Go tool yield without waiting, so a
// tool that means to must say so. Outside a batch, when the call does not
// hold the turn (its tool already counts as waiting) or nobody waits, it
// returns at once; it returns early if ctx is cancelled.
func Yield(ctx context.Context) {
	s, _ := ctx.Value(slotKey{}).(*slot)
	if s == nil {
		return
	}
	g := s.g
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.holder != s || !s.inTool || s.cancelled() || g.closed || len(g.ready) == 0 {
		return
	}
	s.yielding = true
	g.next()
	g.want(s)
	for g.holder != s && !g.closed && ctx.Err() == nil {
		g.cond.Wait()
	}
	s.yielding = false
	if g.holder == s && s.rearm != nil {
		s.rearm()
	}
}

// DeferCancel returns a context that is not cancelled the moment parent
// is, but grace later (or when stop is called). This stands in for the
// reference's cancellation, which lands at the next await that suspends: a
// tool already running to completion is not cut short, and one that waits
// hears of the cancellation shortly after it was requested. stop releases
// the context; call it when done.
func DeferCancel(parent context.Context, grace time.Duration) (ctx context.Context, stop context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(parent))
	var mu sync.Mutex
	var timer *time.Timer
	stopped := false
	stopWatch := context.AfterFunc(parent, func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			timer = time.AfterFunc(grace, cancel)
		}
	})
	return c, func() {
		stopWatch()
		mu.Lock()
		stopped = true
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}

// Batch runs the calls of one concurrent batch and merges the items they
// emit (T is the agent's event type) into one ordered stream. Create it
// with [New], start each call with [Batch.Go] in call order, then consume
// with [Batch.Drain] on the goroutine that created it.
type Batch[T any] struct {
	g        group
	parent   context.Context
	consumer slot
	workers  []*Worker[T]
	queue    []T
	running  int
	idle     bool // the consumer waits for items
	swept    bool
	preempt  time.Duration
	wg       sync.WaitGroup
	errs     []error
}

// Worker is one call's handle on its batch.
type Worker[T any] struct {
	s       slot
	b       *Batch[T]
	ctx     context.Context
	toolCtx context.Context
	cancel  context.CancelFunc
	// timer preempts the current tool wait, which began at entered; one
	// timer per call, re-armed for each wait.
	timer   *time.Timer
	entered time.Time
}

// New returns a batch whose calls run under ctx; preempt is the preemption
// period P (0 means DefaultPreempt). The creating goroutine holds the turn
// until it calls Drain.
func New[T any](ctx context.Context, preempt time.Duration) *Batch[T] {
	if preempt <= 0 {
		preempt = DefaultPreempt
	}
	b := &Batch[T]{parent: ctx, preempt: preempt}
	b.g.cond = sync.NewCond(&b.g.mu)
	b.consumer = slot{wake: make(chan struct{}, 1), g: &b.g}
	b.g.consumer = &b.consumer
	b.g.holder = &b.consumer
	return b
}

// Go starts one call. fn runs on its own goroutine once the call's turn
// comes (calls start in the order Go was called), with a context that is
// cancelled when the batch is interrupted. fn emits items with w.Emit and
// brackets waiting for its tool with w.EnterTool / w.LeaveTool. fn must not
// panic (the agent recovers its workers' panics into errors).
func (b *Batch[T]) Go(fn func(ctx context.Context, w *Worker[T]) error) {
	w := &Worker[T]{b: b}
	w.s = slot{g: &b.g}
	// Cancellation is driven by the batch (in call order), not directly by
	// the parent, so that interrupted calls report in a fixed order.
	w.ctx, w.cancel = context.WithCancel(context.WithoutCancel(b.parent))
	w.toolCtx = context.WithValue(w.ctx, slotKey{}, &w.s)
	w.s.ctx = w.ctx
	w.s.rearm = w.arm
	b.workers = append(b.workers, w)
	b.g.mu.Lock()
	b.running++
	b.g.want(&w.s) // the consumer holds the turn: this only queues
	b.g.mu.Unlock()
	b.wg.Add(1)
	go w.run(fn)
}

func (w *Worker[T]) run(fn func(ctx context.Context, w *Worker[T]) error) {
	defer w.b.wg.Done()
	var err error
	if w.b.g.acquire(&w.s) {
		err = fn(w.ctx, w)
	}
	g := &w.b.g
	g.mu.Lock()
	if err != nil {
		w.b.errs = append(w.b.errs, err)
	}
	w.s.done = true
	w.b.running--
	if w.timer != nil {
		w.timer.Stop()
	}
	if w.b.running == 0 && w.b.idle {
		w.b.idle = false
		g.wantFor(&w.b.consumer)
	}
	if g.holder == &w.s {
		g.next()
	}
	g.cond.Broadcast()
	g.mu.Unlock()
	w.cancel()
}

// ToolContext returns the context to run the call's tool with (it lets
// [Lockstep] find the call). The worker's own code (permission checks,
// middleware) runs under the context fn received.
func (w *Worker[T]) ToolContext() context.Context { return w.toolCtx }

// Emit appends an item to the batch's stream. The caller must hold the turn
// (it does between LeaveTool and EnterTool).
func (w *Worker[T]) Emit(item T) {
	g := &w.b.g
	g.mu.Lock()
	if !g.closed {
		w.b.queue = append(w.b.queue, item)
		if w.b.idle {
			w.b.idle = false
			g.wantFor(&w.b.consumer)
		}
	}
	g.mu.Unlock()
}

// EnterTool marks that the worker now waits for its tool's next chunk (or
// its return). If that takes longer than the preemption period, the call
// counts as waiting and the turn passes to the next ready call.
func (w *Worker[T]) EnterTool() {
	g := &w.b.g
	g.mu.Lock()
	w.s.inTool = true
	w.s.pulls++
	if g.holder == &w.s && !w.s.cancelled() {
		w.arm()
	}
	g.cond.Broadcast()
	g.mu.Unlock()
}

// arm starts the preemption period of a tool wait that begins now (the
// group's mu is held).
func (w *Worker[T]) arm() {
	w.entered = time.Now()
	if w.timer == nil {
		w.timer = time.AfterFunc(w.b.preempt, w.preempt)
	} else {
		w.timer.Reset(w.b.preempt)
	}
}

// preempt passes the turn on if the worker has been waiting for its tool
// for the whole period (a run for an earlier wait, which Stop came too
// late to prevent, finds a wait that began less than a period ago).
func (w *Worker[T]) preempt() {
	g := &w.b.g
	g.mu.Lock()
	if g.holder == &w.s && w.s.inTool && !w.s.yielding && !w.s.cancelled() && !g.closed && time.Since(w.entered) >= w.b.preempt {
		g.next()
	}
	g.mu.Unlock()
}

// LeaveTool marks that the worker got a chunk (or the end of the tool's
// stream) and waits until it holds the turn again. It reports false if the
// batch was closed meanwhile (the worker must then stop emitting).
func (w *Worker[T]) LeaveTool() bool {
	g := &w.b.g
	g.mu.Lock()
	w.s.inTool = false
	if w.timer != nil {
		w.timer.Stop()
	}
	g.mu.Unlock()
	return g.acquire(&w.s)
}

// Drain delivers the items of the batch in the order they were emitted
// until every call has finished, and returns the calls' errors joined. If
// the parent context is cancelled, the calls are cancelled in call order
// at the next point where the consumer would wait (items already emitted
// are still delivered first), their remaining items are delivered after
// all of them finished, and Drain returns normally. If yield returns
// false, the calls are cancelled and their remaining items discarded.
// No goroutine of the batch is left running when Drain returns.
func (b *Batch[T]) Drain(yield func(T) bool) error {
	g := &b.g
	aborted := false
	g.mu.Lock()
	for {
		if len(b.queue) > 0 && (!b.swept || b.running == 0 || aborted) {
			item := b.queue[0]
			var zero T
			b.queue[0] = zero
			b.queue = b.queue[1:]
			if aborted {
				continue
			}
			g.mu.Unlock()
			if !yield(item) {
				aborted = true
				g.mu.Lock()
				if !b.swept {
					b.sweep()
				}
				continue
			}
			g.mu.Lock()
			continue
		}
		if b.running == 0 {
			break
		}
		if !b.swept && b.parent.Err() != nil {
			b.sweep()
		}
		b.idle = true
		if g.holder == &b.consumer {
			g.next()
		}
		g.mu.Unlock()
		b.waitTurn()
		g.mu.Lock()
	}
	b.idle = false
	g.mu.Unlock()
	g.close()
	b.wg.Wait()
	if len(b.errs) == 0 {
		return nil
	}
	return errors.Join(b.errs...)
}

// waitTurn blocks the consumer until it is handed the turn, reacting to the
// parent's cancellation.
func (b *Batch[T]) waitTurn() {
	g := &b.g
	done := b.parent.Done()
	if b.swept {
		done = nil
	}
	var tick <-chan time.Time
	for {
		select {
		case <-b.consumer.wake:
			g.mu.Lock()
			mine := g.holder == &b.consumer
			g.mu.Unlock()
			if mine {
				return
			}
		case <-done:
			done = nil
			g.mu.Lock()
			if b.idle {
				// Like a cancelled asyncio getter: back in the ready queue,
				// the cancellation is handled once the consumer runs.
				b.idle = false
				if g.want(&b.consumer) {
					g.mu.Unlock()
					return
				}
			}
			g.mu.Unlock()
			// A holder busy in the worker's own code (a permission check,
			// a middleware) does not pass the turn: check on it.
			t := time.NewTicker(b.preempt)
			defer t.Stop()
			tick = t.C
		case <-tick:
			g.mu.Lock()
			if h := g.holder; h != nil && h != &b.consumer && !h.inTool && !b.swept &&
				time.Since(g.granted) >= b.preempt {
				// Cancel the calls now, as the reference's cancelled gather
				// reaches every task at its current await.
				b.sweep()
			}
			g.mu.Unlock()
		}
	}
}

// sweep cancels every unfinished call in call order. Calls whose tools
// wait (they lost the turn while in their tool) are queued for the turn in
// that same order, so their interrupted results come out
// deterministically. g.mu is held.
func (b *Batch[T]) sweep() {
	b.swept = true
	for _, w := range b.workers {
		if !w.s.done && w.s.inTool && !w.s.waiting && b.g.holder != &w.s {
			w.s.waiting = true
			b.g.ready = append(b.g.ready, &w.s)
		}
	}
	for _, w := range b.workers {
		w.cancel()
	}
}
