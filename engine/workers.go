package engine

import "time"

// workerIdle is how long a run's goroutine waits for the next run before
// it ends.
const workerIdle = 5 * time.Second

// goRun runs f, a run's exec, on a goroutine that ran one before when one
// is idle, else on a new one. A new goroutine starts with a small stack
// and grows it, copying it each time it doubles, to the depth of the
// store's driver (SQLite's is deep) on the way to the run's first event;
// one that ran a run has it grown already (the collector halves an idle
// one's at most once per cycle). Idle goroutines end after workerIdle, or
// at Shutdown (bgStop; Shutdown waits for them with bgWG, after the runs,
// so none is added once it waits).
func (e *Engine) goRun(f func()) {
	select {
	case e.idle <- f:
		return
	default:
	}
	e.bgWG.Add(1)
	go e.worker(f)
}

func (e *Engine) worker(f func()) {
	defer e.bgWG.Done()
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		f()
		f = nil // the run is done: nothing of it is kept while idle
		t.Reset(workerIdle)
		select {
		case f = <-e.idle:
		case <-t.C:
			return
		case <-e.bgStop:
			return
		}
	}
}
