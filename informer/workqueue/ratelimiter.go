package workqueue

import (
	"math"
	"sync"
	"time"
)

// RateLimiter decides how long a key waits before it is retried. It is
// safe for concurrent use.
type RateLimiter[K comparable] interface {
	// When records one more failure of k and returns how long to wait.
	When(k K) time.Duration
	// Forget clears k's failure history (call it when k succeeds).
	Forget(k K)
	// NumRequeues returns how many failures of k are on record.
	NumRequeues(k K) int
}

// Defaults of DefaultRateLimiter, as client-go's controllers use.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = 1000 * time.Second
	DefaultQPS       = 10
	DefaultBurst     = 100
)

// DefaultRateLimiter returns per-key exponential backoff (5 ms doubling to
// 1000 s) combined with an overall token bucket (10 qps, burst 100): the
// longer of the two delays wins.
func DefaultRateLimiter[K comparable](clock Clock) *MaxOfRateLimiter[K] {
	return NewMaxOf[K](
		NewItemExponential[K](DefaultBaseDelay, DefaultMaxDelay),
		NewBucketRateLimiter[K](clock, DefaultQPS, DefaultBurst),
	)
}

// ItemExponentialRateLimiter waits base*2^failures for a key, capped at max.
type ItemExponentialRateLimiter[K comparable] struct {
	base, max time.Duration
	mu        sync.Mutex
	failures  map[K]int
}

var _ RateLimiter[string] = (*ItemExponentialRateLimiter[string])(nil)

// NewItemExponential returns a per-key exponential backoff from base to max.
func NewItemExponential[K comparable](base, max time.Duration) *ItemExponentialRateLimiter[K] {
	return &ItemExponentialRateLimiter[K]{base: base, max: max, failures: map[K]int{}}
}

// When returns base*2^n for the n-th failure of k (n from 0), at most max.
func (r *ItemExponentialRateLimiter[K]) When(k K) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.failures[k]
	r.failures[k] = n + 1
	d := float64(r.base) * math.Pow(2, float64(n))
	if d > float64(r.max) || math.IsInf(d, 0) {
		return r.max
	}
	return time.Duration(d)
}

// Forget clears k's failures.
func (r *ItemExponentialRateLimiter[K]) Forget(k K) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, k)
}

// NumRequeues returns k's failures.
func (r *ItemExponentialRateLimiter[K]) NumRequeues(k K) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[k]
}

// BucketRateLimiter is an overall token bucket: qps tokens a second, at
// most burst saved up. Each When takes a token, waiting for it if none is
// left. It keeps no per-key state.
type BucketRateLimiter[K comparable] struct {
	clock  Clock
	qps    float64
	burst  float64
	mu     sync.Mutex
	tokens float64
	last   time.Time
}

var _ RateLimiter[string] = (*BucketRateLimiter[string])(nil)

// NewBucketRateLimiter returns a full bucket of burst tokens refilled at
// qps per second. A nil clock means RealClock.
func NewBucketRateLimiter[K comparable](clock Clock, qps float64, burst int) *BucketRateLimiter[K] {
	if clock == nil {
		clock = RealClock{}
	}
	return &BucketRateLimiter[K]{clock: clock, qps: qps, burst: float64(burst), tokens: float64(burst), last: clock.Now()}
}

// When reserves a token and returns how long until it is available.
func (b *BucketRateLimiter[K]) When(K) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if el := now.Sub(b.last); el > 0 {
		b.tokens = math.Min(b.burst, b.tokens+el.Seconds()*b.qps)
		b.last = now
	}
	b.tokens--
	if b.tokens >= 0 || b.qps <= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.qps * float64(time.Second))
}

// Forget does nothing: the bucket is not per key.
func (b *BucketRateLimiter[K]) Forget(K) {}

// NumRequeues is always 0: the bucket is not per key.
func (b *BucketRateLimiter[K]) NumRequeues(K) int { return 0 }

// MaxOfRateLimiter asks every limiter and waits the longest delay.
type MaxOfRateLimiter[K comparable] struct{ limiters []RateLimiter[K] }

var _ RateLimiter[string] = (*MaxOfRateLimiter[string])(nil)

// NewMaxOf combines limiters.
func NewMaxOf[K comparable](limiters ...RateLimiter[K]) *MaxOfRateLimiter[K] {
	return &MaxOfRateLimiter[K]{limiters: limiters}
}

// When returns the longest delay of all limiters (every one records the failure).
func (m *MaxOfRateLimiter[K]) When(k K) time.Duration {
	var d time.Duration
	for _, l := range m.limiters {
		d = max(d, l.When(k))
	}
	return d
}

// Forget forgets k in every limiter.
func (m *MaxOfRateLimiter[K]) Forget(k K) {
	for _, l := range m.limiters {
		l.Forget(k)
	}
}

// NumRequeues returns the largest count of all limiters.
func (m *MaxOfRateLimiter[K]) NumRequeues(k K) int {
	n := 0
	for _, l := range m.limiters {
		n = max(n, l.NumRequeues(k))
	}
	return n
}
