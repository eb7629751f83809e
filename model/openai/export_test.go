package openai

import (
	"context"
	"time"
)

// WithSleep replaces the retry wait, so tests can observe the backoff
// (Retry-After honoured) without sleeping.
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) { c.policy.Sleep = f }
}
