package client

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/scheme"
)

// Client talks to one API server: it sends rate-limited, retried requests,
// decodes error bodies into *meta.Status, discovers the server's resources
// and validates objects before they leave. Typed access goes through For,
// untyped access through DynamicFor.
//
// A Client is safe for concurrent use and holds no goroutines of its own;
// the connections it keeps are reused until the process ends or
// CloseIdleConnections is called. Make one per server and share it.
type Client struct {
	base       *url.URL
	http       *http.Client
	limiter    RateLimiter
	timeout    time.Duration
	scheme     *scheme.Scheme
	validate   bool
	maxRetries int
	backoff    time.Duration
	maxBackoff time.Duration
	clock      clock
	logger     *slog.Logger
	userAgent  string
	discovery  *Discovery
	mapper     *RESTMapper

	types sync.Map // reflect.Type of *T -> *scheme.Type
}

// New returns a client for cfg. It fails with ErrInvalidConfig when cfg
// cannot be used: no host, an unparsable URL, a certificate without its
// key, PEM that does not parse, conflicting credentials. No request is
// sent until the client is used.
func New(cfg *Config, opts ...Option) (*Client, error) {
	if cfg == nil || cfg.Host == "" {
		return nil, fmt.Errorf("%w: Host is required", ErrInvalidConfig)
	}
	base, err := url.Parse(cfg.Host)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("%w: Host %q is not an http(s) URL", ErrInvalidConfig, cfg.Host)
	}
	base.Path = strings.TrimRight(base.Path, "/")
	o := options{maxRetries: 5}
	for _, opt := range opts {
		opt(&o)
	}
	o.fill(cfg)
	rt, err := newTransport(cfg)
	if err != nil {
		return nil, err
	}
	if o.transport != nil {
		rt = wrapAuth(o.transport, cfg)
	}
	if o.scheme == nil {
		o.scheme = api.NewScheme()
	}
	c := &Client{
		base: base, limiter: o.limiter, timeout: cfg.Timeout,
		scheme: o.scheme, validate: !o.noValidation, maxRetries: o.maxRetries, backoff: o.backoff,
		maxBackoff: o.maxBackoff, clock: o.clock, logger: o.logger, userAgent: cfg.UserAgent,
		// Redirects are not followed: the API server sends none, and
		// following one would carry the credentials to another host.
		http: &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	c.discovery = newDiscovery(c, o.cacheDir, o.cacheTTL)
	c.mapper = newRESTMapper(c.discovery)
	return c, nil
}

// Scheme returns the scheme the client maps types and validates with.
func (c *Client) Scheme() *scheme.Scheme { return c.scheme }

// Discovery returns the client's discovery client, which caches what the
// server serves.
func (c *Client) Discovery() *Discovery { return c.discovery }

// RESTMapper returns the mapper between kinds and resources, built from
// discovery.
func (c *Client) RESTMapper() *RESTMapper { return c.mapper }

// CloseIdleConnections closes the client's idle connections. The client
// stays usable.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// typeOf returns the scheme type whose New makes a value of Go type rt
// (a pointer type).
func (c *Client) typeOf(rt reflect.Type) (*scheme.Type, error) {
	if t, ok := c.types.Load(rt); ok {
		return t.(*scheme.Type), nil
	}
	for _, t := range c.scheme.Types() {
		if reflect.TypeOf(t.New()) == rt {
			c.types.Store(rt, t)
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w: Go type %v", ErrNotRegistered, rt)
}
