package client

import (
	"context"
	"sync"
	"time"
)

// RateLimiter decides when the next request may be sent. Wait blocks until
// it may, or returns ctx's error when ctx ends first. Implementations are
// safe for concurrent use.
type RateLimiter interface {
	Wait(ctx context.Context) error
}

// clock is the time source of the token bucket and the retry loop; tests
// replace it with a fake one.
type clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TokenBucket is a RateLimiter allowing qps requests a second on average
// and burst at once. It starts full. A waiter reserves its token up front,
// so waiters are served in the order they arrived, and hands it back when
// its context ends before its turn. Safe for concurrent use.
type TokenBucket struct {
	qps   float64
	burst float64
	clock clock

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

var _ RateLimiter = (*TokenBucket)(nil)

// NewTokenBucket returns a full bucket of burst tokens refilled at qps a
// second. qps <= 0 means DefaultQPS, burst <= 0 means DefaultBurst; a burst
// below 1 is raised to 1.
func NewTokenBucket(qps float32, burst int) *TokenBucket {
	return newTokenBucket(qps, burst, realClock{})
}

func newTokenBucket(qps float32, burst int, c clock) *TokenBucket {
	if qps <= 0 {
		qps = DefaultQPS
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	return &TokenBucket{qps: float64(qps), burst: float64(burst), clock: c, tokens: float64(burst), last: c.Now()}
}

// refill adds the tokens earned since the last call; b.mu is held.
func (b *TokenBucket) refill() {
	now := b.clock.Now()
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = min(b.burst, b.tokens+el*b.qps)
	}
	b.last = now
}

// TryAccept takes a token if one is available now, without waiting.
func (b *TokenBucket) TryAccept() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// Tokens returns the tokens available now (negative while waiters hold
// reservations).
func (b *TokenBucket) Tokens() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	return b.tokens
}

// Wait takes a token, waiting for one when the bucket is empty. It
// returns ctx's error, and gives the token back, when ctx ends first.
func (b *TokenBucket) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	b.refill()
	b.tokens--
	wait := time.Duration(0)
	if b.tokens < 0 {
		wait = time.Duration(-b.tokens / b.qps * float64(time.Second))
	}
	b.mu.Unlock()
	if wait == 0 {
		return nil
	}
	if err := b.clock.Sleep(ctx, wait); err != nil {
		b.mu.Lock()
		b.tokens = min(b.burst, b.tokens+1)
		b.mu.Unlock()
		return err
	}
	return nil
}

// noLimit is the RateLimiter of a client with a negative QPS.
type noLimit struct{}

func (noLimit) Wait(ctx context.Context) error { return ctx.Err() }
