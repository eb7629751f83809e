package sessiontest

import (
	"sync"
	"time"
)

// Clock is a settable clock for the stores under test: lease expiry is
// checked by moving it, never by sleeping.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at a fixed, microsecond-aligned instant.
func NewClock() *Clock {
	return &Clock{t: time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
