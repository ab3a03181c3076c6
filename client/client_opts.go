package client

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/orkit/orkit/api/scheme"
)

// Option changes how New builds a Client. Options are applied in order;
// defaults are filled in after them.
type Option func(*options)

type options struct {
	scheme       *scheme.Scheme
	noValidation bool
	limiter      RateLimiter
	transport    http.RoundTripper
	maxRetries   int
	backoff      time.Duration
	maxBackoff   time.Duration
	cacheDir     string
	cacheTTL     time.Duration
	logger       *slog.Logger
	clock        clock
}

// WithScheme sets the scheme that maps Go types to kinds and resources and
// validates objects before they are sent. The default is api.NewScheme()
// (every built-in kind); register custom kinds on it or pass your own.
func WithScheme(s *scheme.Scheme) Option { return func(o *options) { o.scheme = s } }

// WithoutValidation turns client-side validation off: objects are sent as
// they are and only the server validates them.
func WithoutValidation() Option { return func(o *options) { o.noValidation = true } }

// WithRateLimiter replaces the token bucket built from Config.QPS and
// Config.Burst. The limiter may be shared between clients.
func WithRateLimiter(l RateLimiter) Option { return func(o *options) { o.limiter = l } }

// WithTransport replaces the HTTP transport built from the Config's TLS
// settings; the client still adds authentication and the user agent. Use
// it to observe or fake the wire in tests.
func WithTransport(rt http.RoundTripper) Option { return func(o *options) { o.transport = rt } }

// WithRetry sets how often a failed request is retried (0 disables
// retries; default 5) and the exponential backoff between attempts
// (default 100ms doubling up to 10s). A server's Retry-After takes
// precedence over the backoff.
func WithRetry(maxRetries int, base, limit time.Duration) Option {
	return func(o *options) { o.maxRetries, o.backoff, o.maxBackoff = maxRetries, base, limit }
}

// WithDiscoveryCache keeps discovery documents in dir (one subdirectory per
// server, as kubectl's ~/.kube/cache/discovery) and trusts them for ttl
// (default 10 minutes). Without it discovery is cached in memory only.
func WithDiscoveryCache(dir string, ttl time.Duration) Option {
	return func(o *options) { o.cacheDir, o.cacheTTL = dir, ttl }
}

// WithLogger sets the logger for retries and cache problems; default
// slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

func (o *options) fill(cfg *Config) {
	if o.clock == nil {
		o.clock = realClock{}
	}
	if o.limiter == nil {
		if cfg.QPS < 0 {
			o.limiter = noLimit{}
		} else {
			o.limiter = newTokenBucket(cfg.QPS, cfg.Burst, o.clock)
		}
	}
	if o.maxRetries < 0 {
		o.maxRetries = 0
	}
	if o.backoff <= 0 {
		o.backoff = 100 * time.Millisecond
	}
	if o.maxBackoff < o.backoff {
		o.maxBackoff = max(o.backoff, 10*time.Second)
	}
	if o.cacheTTL <= 0 {
		o.cacheTTL = 10 * time.Minute
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
}

// withClock replaces the time source of the retry loop, the rate limiter
// and the discovery cache (tests).
func withClock(c clock) Option { return func(o *options) { o.clock = c } }
