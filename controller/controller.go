package controller

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/informer/workqueue"
)

// Controller feeds a Reconciler from informers through a work queue:
//
//	Source ──event──▶ Mapper ──Request──▶ Queue (dedup, rate limit, delay) ──▶ workers ──▶ Reconcile
//	                                           ▲                                              │
//	                                           └──── error: AddRateLimited; RequeueAfter ◀────┘
//
// Events only ever enqueue keys; the queue merges repeated keys, never
// hands one key to two workers, and retries failures with backoff. A
// write conflict (409 Conflict: the object changed since the cache saw it)
// is requeued with backoff too, but logged at debug level only and counted
// as ResultConflict, not as an error: it is how optimistic concurrency
// works, as Kubernetes' controllers treat it.
//
// Set up watches (Watch, WatchObjects, WatchOwned) first, then Run. A
// Controller is safe for concurrent use; Run may be called again after it
// returned (each run has a fresh queue; the rate limiter's history is
// kept).
type Controller struct {
	name    string
	r       Reconciler
	cfg     Config
	metrics *Metrics

	mu      sync.Mutex
	watches []watchFunc
	running bool
}

// watchFunc registers one source's handler, enqueuing through enqueue.
type watchFunc func(enqueue func(Request)) *informer.Registration

// New returns a stopped controller called name (used in logs and as the
// metrics label) that reconciles with r. It fails with ErrInvalidConfig
// when name is empty or r is nil.
func New(name string, r Reconciler, cfg Config) (*Controller, error) {
	if name == "" {
		return nil, fmt.Errorf("%w: a controller needs a name", ErrInvalidConfig)
	}
	if r == nil {
		return nil, fmt.Errorf("%w: controller %q has no reconciler", ErrInvalidConfig, name)
	}
	cfg.fill(name)
	return &Controller{name: name, r: r, cfg: cfg, metrics: newMetrics(name)}, nil
}

// Name returns the controller's name.
func (c *Controller) Name() string { return c.name }

// Metrics returns the controller's collectors, for the owner to register.
func (c *Controller) Metrics() *Metrics { return c.metrics }

func (c *Controller) addWatch(w watchFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watches = append(c.watches, w)
}

// Run registers the controller's handlers with its sources, waits until
// they have been handed every cached object (at most CacheSyncTimeout),
// then reconciles with Config.Workers workers until ctx is done. On the
// way out it removes its handlers, shuts the queue down (dropping what
// is queued: the next run starts from the caches again) and waits for
// every worker's reconcile to return. It returns nil when ctx ends,
// ErrCacheSyncTimeout (wrapped) when the caches do not sync in time, or
// ErrAlreadyRunning.
func (c *Controller) Run(ctx context.Context) error {
	watches, err := c.start()
	if err != nil {
		return err
	}
	defer c.stop()
	q := workqueue.New(workqueue.Config[Request]{Clock: c.cfg.Clock, RateLimiter: c.cfg.RateLimiter, Metrics: c.metrics.queue})
	regs := make([]*informer.Registration, 0, len(watches))
	for _, w := range watches {
		regs = append(regs, w(q.Add))
	}
	defer func() {
		for _, r := range regs {
			r.Remove()
		}
		q.ShutDown()
	}()
	if err := c.waitForSync(ctx, regs); err != nil || ctx.Err() != nil {
		return err
	}
	c.cfg.Logger.Info("controller started", "workers", c.cfg.Workers)
	var wg sync.WaitGroup
	for range c.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.worker(ctx, q)
		}()
	}
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
	c.cfg.Logger.Info("controller stopped")
	return nil
}

func (c *Controller) start() ([]watchFunc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return nil, fmt.Errorf("%w: controller %q", ErrAlreadyRunning, c.name)
	}
	c.running = true
	return append([]watchFunc(nil), c.watches...), nil
}

func (c *Controller) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = false
}

// waitForSync waits for every registration's initial list; it returns nil
// when ctx ends first (a stop, not a failure).
func (c *Controller) waitForSync(ctx context.Context, regs []*informer.Registration) error {
	sctx, cancel := context.WithTimeout(ctx, c.cfg.CacheSyncTimeout)
	defer cancel()
	fns := make([]func() bool, len(regs))
	for i, r := range regs {
		fns[i] = r.HasSynced
	}
	if informer.WaitForCacheSync(sctx, fns...) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("%w: controller %q after %v", ErrCacheSyncTimeout, c.name, c.cfg.CacheSyncTimeout)
}

// worker takes requests until the queue shuts down or ctx ends.
func (c *Controller) worker(ctx context.Context, q *workqueue.Queue[Request]) {
	for {
		req, err := q.Get(ctx)
		if err != nil {
			return
		}
		c.process(ctx, q, req)
	}
}

// process reconciles req once and decides what the queue does with it.
func (c *Controller) process(ctx context.Context, q *workqueue.Queue[Request], req Request) {
	defer q.Done(req)
	c.metrics.active.Inc()
	start := c.cfg.Clock.Now()
	res, err := c.reconcile(ctx, req)
	c.metrics.active.Dec()
	var result string
	switch {
	case err != nil && IsTerminal(err):
		result = ResultTerminal
		q.Forget(req)
		c.cfg.Logger.Error("reconcile failed; not retrying", "request", req.String(), "err", err)
	case err != nil && ctx.Err() != nil:
		result = ResultError // stopping: the next run starts afresh, without backoff history
		q.Forget(req)
	case apierrors.IsConflict(err):
		// Optimistic concurrency at work: the cache was behind a newer
		// write. The next round reads fresh state; nothing failed.
		result = ResultConflict
		q.AddRateLimited(req)
		c.cfg.Logger.Debug("reconcile conflicted with a newer write; requeued", "request", req.String(), "err", err)
	case err != nil:
		result = ResultError
		q.AddRateLimited(req)
		c.cfg.Logger.Error("reconcile failed; retrying", "request", req.String(), "err", err,
			"requeues", q.NumRequeues(req))
	case res.RequeueAfter > 0:
		result = ResultRequeueAfter
		q.Forget(req)
		q.AddAfter(req, res.RequeueAfter)
	case res.Requeue:
		result = ResultRequeue
		q.AddRateLimited(req)
	default:
		result = ResultSuccess
		q.Forget(req)
	}
	c.metrics.observe(result, c.cfg.Clock.Now().Sub(start))
}

// reconcile calls the reconciler, turning a panic into an error wrapping
// ErrPanic so that one bad object cannot stop the controller.
func (c *Controller) reconcile(ctx context.Context, req Request) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.cfg.Logger.Error("reconciler panicked", "request", req.String(), "panic", p, "stack", string(debug.Stack()))
			res, err = Result{}, fmt.Errorf("%w: %s: %v", ErrPanic, req, p)
		}
	}()
	return c.r.Reconcile(ctx, req)
}
