package coop

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"
)

// DefaultPreempt is how long a call may keep the turn while its tool blocks
// without going through Sleep or Block before a sibling gets the turn.
const DefaultPreempt = 20 * time.Millisecond

type slotKey struct{}

// ErrPanicked is wrapped by the error of a call whose worker panicked.
var ErrPanicked = errors.New("coop: tool call worker panicked")

// slot is one participant of a batch: a worker (one tool call) or the
// consumer that drains the batch's items. A worker's slot may be used by two
// goroutines (the worker and its tool), which is why workers wait on the
// group's condition variable and re-check, rather than take a token.
type slot struct {
	wake      chan struct{} // the consumer's grant notifications
	waiting   bool          // in the ready queue
	suspended bool          // its tool waits in Sleep/Block
	inTool    bool          // its worker waits for the tool's next chunk
	pulls     int           // how often the worker asked its tool for a chunk
	done      bool
	g         *group
	// ctx is a worker's context. Once it is cancelled the call keeps its
	// turn until it finishes: its tool is about to report the interruption,
	// and the interrupted calls must report in call order.
	ctx context.Context
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

// suspend marks s's tool as waiting and passes the turn on. The tool of a
// call runs ahead of the call's worker only until it waits: a tool that
// suspends while its worker still handles the previous chunk is held until
// the worker asks for the next one, as an async generator would be.
func (g *group) suspend(s *slot) {
	g.mu.Lock()
	for !s.inTool && !s.done && !g.closed {
		g.cond.Wait()
	}
	s.suspended = true
	if g.holder == s && s.inTool && !s.cancelled() {
		g.next()
	}
	g.mu.Unlock()
}

// resume ends a suspension: s gets back in line for the turn.
func (g *group) resume(s *slot) {
	g.mu.Lock()
	s.suspended = false
	if s.done {
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	g.acquire(s)
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
// the next one. A tool running on its own goroutine (as tool.Runner runs
// it) would otherwise race ahead into its next wait while the worker still
// emits the previous chunk's events, and the turn would pass too early.
// Outside a batch it returns seq unchanged.
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

// Sleep waits for d or until ctx is done. A cancellation already pending
// when Sleep is called is reported without waiting (the reference's tasks
// receive their CancelledError at their next suspension). Inside a batch,
// the call's turn passes to its siblings while it sleeps; Sleep(ctx, 0)
// just lets every ready sibling run first, like asyncio.sleep(0).
func Sleep(ctx context.Context, d time.Duration) error {
	df, _ := ctx.Value(deferKey{}).(*deferred)
	if df != nil && df.parent.Err() != nil {
		df.cancel() // a deferred cancellation lands here
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s, _ := ctx.Value(slotKey{}).(*slot)
	if s != nil {
		s.g.suspend(s)
		defer s.g.resume(s)
	}
	if d > 0 {
		var parentDone <-chan struct{}
		if df != nil {
			parentDone = df.parent.Done()
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-parentDone:
			df.cancel()
		}
		t.Stop()
	}
	return ctx.Err()
}

type deferKey struct{}

// deferred is a context whose cancellation waits for the next suspension.
type deferred struct {
	parent  context.Context
	cancel  context.CancelFunc
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// DeferCancel returns a context that is not cancelled the moment parent
// is, but at the next point where its holder waits: a Sleep or Block under
// it, or grace after parent was cancelled for code that blocks without
// telling. This is how the reference's cancellation behaves (it lands at
// the next await that really suspends): a tool already running to
// completion without waiting is not cut short. stop releases the context;
// call it when done.
func DeferCancel(parent context.Context, grace time.Duration) (ctx context.Context, stop context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(parent))
	d := &deferred{parent: parent, cancel: cancel}
	stopWatch := context.AfterFunc(parent, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if !d.stopped {
			d.timer = time.AfterFunc(grace, cancel)
		}
	})
	return context.WithValue(c, deferKey{}, d), func() {
		stopWatch()
		d.mu.Lock()
		d.stopped = true
		if d.timer != nil {
			d.timer.Stop()
		}
		d.mu.Unlock()
		cancel()
	}
}

// Block marks the start of a wait the scheduler cannot see (a channel
// receive, a network round trip) and returns the function that marks its
// end. Inside a batch, siblings run in between; elsewhere both are no-ops.
//
//	done := coop.Block(ctx)
//	v := <-ch
//	done()
func Block(ctx context.Context) (done func()) {
	if df, _ := ctx.Value(deferKey{}).(*deferred); df != nil && df.parent.Err() != nil {
		df.cancel()
	}
	s, _ := ctx.Value(slotKey{}).(*slot)
	if s == nil {
		return func() {}
	}
	s.g.suspend(s)
	var once sync.Once
	return func() { once.Do(func() { s.g.resume(s) }) }
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
}

// New returns a batch whose calls run under ctx; preempt is how long a tool
// may block unannounced before the turn moves on (0 means DefaultPreempt).
// The creating goroutine holds the turn until it calls Drain.
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
// brackets waiting for its tool with w.EnterTool / w.LeaveTool.
func (b *Batch[T]) Go(fn func(ctx context.Context, w *Worker[T]) error) {
	w := &Worker[T]{b: b}
	w.s = slot{g: &b.g}
	// Cancellation is driven by the batch (in call order), not directly by
	// the parent, so that interrupted calls report in a fixed order.
	w.ctx, w.cancel = context.WithCancel(context.WithoutCancel(b.parent))
	w.toolCtx = context.WithValue(w.ctx, slotKey{}, &w.s)
	w.s.ctx = w.ctx
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
		err = w.call(fn)
	}
	g := &w.b.g
	g.mu.Lock()
	if err != nil {
		w.b.errs = append(w.b.errs, err)
	}
	w.s.done = true
	w.b.running--
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

func (w *Worker[T]) call(fn func(ctx context.Context, w *Worker[T]) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrPanicked, r)
		}
	}()
	return fn(w.ctx, w)
}

// ToolContext returns the context to run the call's tool with: Sleep and
// Block under it pass the call's turn to its siblings. The worker's own
// code (permission checks, middleware) runs under the context fn received,
// where they are plain waits.
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

// EnterTool marks that the worker now waits for its tool's next chunk:
// from here on, a tool that waits (Sleep, Block) or blocks for longer than
// the preemption period lets its siblings run.
func (w *Worker[T]) EnterTool() {
	g := &w.b.g
	g.mu.Lock()
	w.s.inTool = true
	w.s.pulls++
	if w.s.suspended && g.holder == &w.s && !w.s.cancelled() {
		g.next()
	}
	g.cond.Broadcast()
	g.mu.Unlock()
}

// LeaveTool marks that the worker got a chunk (or the end of the tool's
// stream) and waits until it holds the turn again. It reports false if the
// batch was closed meanwhile (the worker must then stop emitting).
func (w *Worker[T]) LeaveTool() bool {
	g := &w.b.g
	g.mu.Lock()
	w.s.inTool = false
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
// parent's cancellation and preempting a tool that blocks unannounced.
func (b *Batch[T]) waitTurn() {
	g := &b.g
	timer := time.NewTimer(b.preempt)
	defer timer.Stop()
	done := b.parent.Done()
	if b.swept {
		done = nil
	}
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
		case <-timer.C:
			g.mu.Lock()
			if h := g.holder; h != nil && h != &b.consumer && h.inTool && !h.suspended &&
				!h.cancelled() && time.Since(g.granted) >= b.preempt {
				g.next()
			} else if h != nil && h != &b.consumer && !h.inTool && !b.swept && b.parent.Err() != nil &&
				time.Since(g.granted) >= b.preempt {
				// The holder waits in the worker's own code (a permission
				// check, a middleware) and will not pass the turn: cancel
				// the calls now, as the reference's cancelled gather
				// reaches every task at its current await.
				b.sweep()
			}
			g.mu.Unlock()
			timer.Reset(b.preempt)
		}
	}
}

// sweep cancels every unfinished call in call order. Calls whose tools are
// suspended are queued for the turn in that same order, so their
// interrupted results come out deterministically. g.mu is held.
func (b *Batch[T]) sweep() {
	b.swept = true
	for _, w := range b.workers {
		if !w.s.done && w.s.suspended && !w.s.waiting && b.g.holder != &w.s {
			w.s.waiting = true
			b.g.ready = append(b.g.ready, &w.s)
		}
	}
	for _, w := range b.workers {
		w.cancel()
	}
}
