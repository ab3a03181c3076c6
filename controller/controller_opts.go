package controller

import (
	"log/slog"
	"time"

	"github.com/orkit/orkit/informer/workqueue"
)

// DefaultCacheSyncTimeout is how long a controller waits for its sources'
// caches to sync when Config.CacheSyncTimeout is zero.
const DefaultCacheSyncTimeout = 2 * time.Minute

// Config configures a Controller. The zero value is usable: one worker,
// the workqueue's DefaultRateLimiter, the real clock, DefaultCacheSyncTimeout
// and slog.Default(). Config is read once by New.
type Config struct {
	// Workers is how many requests are reconciled at once (never two for
	// the same Request); default 1.
	Workers int
	// RateLimiter paces retries of failed requests (and Result.Requeue);
	// default workqueue.DefaultRateLimiter (5 ms doubling to 1000 s per
	// request, 10 qps overall).
	RateLimiter workqueue.RateLimiter[Request]
	// Clock is the time source of the queue and of the duration metrics;
	// tests pass a *workqueue.FakeClock to drive RequeueAfter.
	Clock workqueue.Clock
	// CacheSyncTimeout bounds the wait for the sources' caches at Run;
	// default DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration
	// Logger; default slog.Default(). Every record carries the controller's
	// name.
	Logger *slog.Logger
}

func (o *Config) fill(name string) {
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.Clock == nil {
		o.Clock = workqueue.RealClock{}
	}
	if o.RateLimiter == nil {
		o.RateLimiter = workqueue.DefaultRateLimiter[Request](o.Clock)
	}
	if o.CacheSyncTimeout <= 0 {
		o.CacheSyncTimeout = DefaultCacheSyncTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With("controller", name)
}
