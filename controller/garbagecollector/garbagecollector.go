package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/informer/workqueue"
)

// Defaults of Config.
const (
	DefaultWorkers          = 8
	DefaultDiscoveryPeriod  = 30 * time.Second
	DefaultCacheSyncTimeout = time.Minute
)

// Config configures the garbage collector; the zero value means the
// defaults.
type Config struct {
	// Workers is how many objects are processed at once; default 8.
	Workers int
	// DiscoveryPeriod is how often discovery is asked again for resources
	// added since (a newly registered kind); it is also how long a
	// dependent whose owner could not be resolved waits before it is
	// checked again. Default 30 s.
	DiscoveryPeriod time.Duration
	// CacheSyncTimeout bounds the wait for the informers' first lists
	// before the workers start; a resource that cannot be listed by then
	// (forbidden to the collector, say) is logged and followed as it
	// comes. Deletions stay safe without it: an owner's absence is always
	// confirmed by a live GET. Default 1 minute.
	CacheSyncTimeout time.Duration
	// Ignored resources are not followed; default events (core and
	// events.k8s.io), which have no owners worth collecting.
	Ignored []meta.GroupResource
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// Controller is the garbage collector: it deletes objects whose owners
// are gone and carries out the orphan and foreground propagation
// policies. It is a controller.Runnable: add it to the Manager it was made
// on, or Run it, once. Graph inspection methods are safe from any
// goroutine.
type Controller struct {
	opts   Config
	client *client.Client
	graph  *graph
	queue  *workqueue.Queue[meta.UID]

	running      atomic.Bool
	absent       absentOwners
	unknownKinds unknownKinds
	metrics      *Metrics
	mu           sync.Mutex
	watched      map[meta.GroupVersionResource]context.CancelFunc
	synced       []func() bool
}

var _ controller.Runnable = (*Controller)(nil)

// New makes the garbage collector over m's client (as
// system:kube-controller-manager in a cluster: discovery, dynamic
// list/watch, get, update and delete), with informers of its own for
// every resource discovery finds; add it to m (m.Add) to run it while m
// leads, or Run it. It fails with ErrInvalidConfig without a manager.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.DiscoveryPeriod <= 0 {
		cfg.DiscoveryPeriod = DefaultDiscoveryPeriod
	}
	if cfg.CacheSyncTimeout <= 0 {
		cfg.CacheSyncTimeout = DefaultCacheSyncTimeout
	}
	if cfg.Ignored == nil {
		cfg.Ignored = []meta.GroupResource{{Resource: "events"}, {Group: "events.k8s.io", Resource: "events"}}
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	cfg.Logger = cfg.Logger.With("controller", "garbagecollector")
	gc := &Controller{opts: cfg, client: m.Client(), graph: newGraph(), watched: map[meta.GroupVersionResource]context.CancelFunc{}}
	gc.metrics = newMetrics(gc)
	return gc, nil
}

// Metrics returns the collector's Prometheus collectors, for the owner to
// register.
func (gc *Controller) Metrics() *Metrics { return gc.metrics }

// Run discovers the resources, follows each with an informer, waits for
// their first lists and processes the graph with Config.Workers workers
// until ctx ends; discovery is repeated every DiscoveryPeriod (the first
// one until it succeeds). It returns nil when ctx ends, or
// ErrAlreadyRunning. Every goroutine it starts has stopped when it
// returns.
func (gc *Controller) Run(ctx context.Context) error {
	if !gc.running.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	// On the way out: the queue shuts down, ctx is cancelled (informers
	// and workers stop), then every goroutine is waited for.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gc.queue = workqueue.New(workqueue.Config[meta.UID]{Metrics: gc.metrics.queue})
	defer gc.queue.ShutDown()
	if !gc.firstSync(ctx, &wg) || !gc.waitForCaches(ctx) {
		return nil
	}
	gc.opts.Logger.Info("garbage collector started", "resources", len(gc.Resources()), "objects", gc.graph.len())
	for range gc.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gc.worker(ctx)
		}()
	}
	t := time.NewTicker(gc.opts.DiscoveryPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := gc.sync(ctx, &wg); err != nil && ctx.Err() == nil {
				gc.opts.Logger.Warn("discovery failed; keeping the resources followed so far", "err", err)
			}
		}
	}
}

// firstSync runs discovery until it succeeds, retrying with a delay that
// doubles from 100 ms to DiscoveryPeriod (an API server that is not up
// yet is waited for, not an error); false when ctx ended.
func (gc *Controller) firstSync(ctx context.Context, wg *sync.WaitGroup) bool {
	delay := 100 * time.Millisecond
	for {
		err := gc.sync(ctx, wg)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		gc.opts.Logger.Warn("discovery failed; retrying", "err", err, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		delay = min(2*delay, gc.opts.DiscoveryPeriod)
	}
}

// waitForCaches waits for the informers' first lists, at most
// CacheSyncTimeout; it returns false when ctx ended.
func (gc *Controller) waitForCaches(ctx context.Context) bool {
	gc.mu.Lock()
	synced := slices.Clone(gc.synced)
	gc.mu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, gc.opts.CacheSyncTimeout)
	defer cancel()
	if !informer.WaitForCacheSync(sctx, synced...) {
		if ctx.Err() != nil {
			return false
		}
		gc.opts.Logger.Warn("starting before every resource was listed", "timeout", gc.opts.CacheSyncTimeout)
	}
	return true
}

// Resources returns the resources the collector follows, sorted.
func (gc *Controller) Resources() []meta.GroupVersionResource {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	out := make([]meta.GroupVersionResource, 0, len(gc.watched))
	for gvr := range gc.watched {
		out = append(out, gvr)
	}
	slices.SortFunc(out, func(a, b meta.GroupVersionResource) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// GraphSize returns how many objects the ownership graph holds.
func (gc *Controller) GraphSize() int { return gc.graph.len() }

// sync asks discovery for the served resources and starts an informer
// for each new one that can be listed, watched and deleted.
func (gc *Controller) sync(ctx context.Context, wg *sync.WaitGroup) error {
	c := gc.client
	c.Discovery().Invalidate()
	groups, err := c.Discovery().ServerGroups(ctx)
	if err != nil {
		return err
	}
	served := map[meta.GroupVersionResource]bool{}
	known := map[string]bool{} // groups whose resources were listed
	for _, g := range groups {
		version := g.PreferredVersion.Version
		if version == "" && len(g.Versions) > 0 {
			version = g.Versions[0].Version
		}
		gv := meta.GroupVersion{Group: g.Name, Version: version}
		list, err := c.Discovery().ServerResources(ctx, gv)
		if err != nil {
			gc.opts.Logger.Warn("discovery: skipping group version", "groupVersion", gv.String(), "err", err)
			continue
		}
		known[g.Name] = true
		for _, r := range list.Resources {
			if gc.wanted(gv, r) {
				m := client.Mapping{Resource: gv.WithResource(r.Name), Kind: gv.WithKind(r.Kind), Namespaced: r.Namespaced}
				served[m.Resource] = true
				gc.watch(ctx, wg, m)
			}
		}
	}
	gc.unwatchGone(served, known, groups)
	return nil
}

// unwatchGone stops following resources the server no longer serves: of
// a group that is gone, or missing from a group whose resources were
// listed (a group discovery failed for is left as it is). Their objects
// leave the graph as deleted objects do, so their dependents are checked
// (by a live GET, which finds nothing if they are really gone).
func (gc *Controller) unwatchGone(served map[meta.GroupVersionResource]bool, known map[string]bool, groups []client.APIGroup) {
	present := map[string]bool{}
	for _, g := range groups {
		present[g.Name] = true
	}
	gc.mu.Lock()
	var gone []meta.GroupVersionResource
	for gvr, cancel := range gc.watched {
		if served[gvr] || (present[gvr.Group] && !known[gvr.Group]) {
			continue
		}
		cancel()
		delete(gc.watched, gvr)
		gone = append(gone, gvr)
	}
	gc.mu.Unlock()
	for _, gvr := range gone {
		gc.opts.Logger.Info("resource no longer served; not following it", "resource", gvr.String())
		for _, uid := range gc.graph.uidsOf(gvr) {
			gc.forget(uid)
		}
	}
}

func (gc *Controller) wanted(gv meta.GroupVersion, r client.APIResource) bool {
	if strings.Contains(r.Name, "/") {
		return false
	}
	for _, v := range []string{"list", "watch", "get", "update", "delete"} {
		if !slices.Contains(r.Verbs, v) {
			return false
		}
	}
	return !slices.Contains(gc.opts.Ignored, meta.GroupResource{Group: gv.Group, Resource: r.Name})
}

// watch starts an informer over m's resource unless one runs already.
func (gc *Controller) watch(ctx context.Context, wg *sync.WaitGroup, m client.Mapping) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if _, ok := gc.watched[m.Resource]; ok {
		return
	}
	ictx, cancel := context.WithCancel(ctx)
	gc.watched[m.Resource] = cancel
	lw := informer.NewListerWatcher(client.DynamicFor(gc.client, m, ""), "", "")
	inf := informer.New[*client.Unstructured](lw, informer.Config[*client.Unstructured]{
		Name: m.Resource.String(), Logger: gc.opts.Logger, Transform: metadataOnly,
	})
	inf.AddEventHandler(informer.HandlerFuncs[*client.Unstructured]{
		AddFunc:    func(u *client.Unstructured, _ bool) { gc.observeIfWatched(m, u) },
		UpdateFunc: func(_, u *client.Unstructured) { gc.observeIfWatched(m, u) },
		DeleteFunc: func(obj any) {
			if u, ok := informer.ObjectOf[*client.Unstructured](obj); ok {
				gc.forget(u.UID)
			}
		},
	})
	gc.synced = append(gc.synced, inf.HasSynced)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := inf.Run(ictx); err != nil && ictx.Err() == nil {
			gc.opts.Logger.Error("informer stopped", "resource", m.Resource.String(), "err", err)
		}
	}()
	gc.opts.Logger.Debug("following resource", "resource", m.Resource.String())
}

// metadataOnly keeps what the graph needs: the object's metadata.
func metadataOnly(u *client.Unstructured) (*client.Unstructured, error) {
	u.Content = nil
	u.ManagedFields = nil
	u.Annotations = nil
	return u, nil
}

// observeIfWatched observes u unless its resource stopped being
// followed (an informer may deliver a last event after it was stopped).
func (gc *Controller) observeIfWatched(m client.Mapping, u *client.Unstructured) {
	gc.mu.Lock()
	_, ok := gc.watched[m.Resource]
	gc.mu.Unlock()
	if ok {
		gc.observe(m, u)
	}
}

// observe records an added or changed object and queues what it may
// concern: itself (owners to check, a finalizer to act on), owners it
// stopped naming and owners deleting in the foreground (which wait for
// it).
func (gc *Controller) observe(m client.Mapping, u *client.Unstructured) {
	n := &node{
		uid: u.UID, mapping: m, namespace: u.Namespace, name: u.Name,
		owners: slices.Clone(u.OwnerReferences), deleting: u.DeletionTimestamp != nil,
		finalizers: slices.Clone(u.Finalizers),
	}
	old := gc.graph.upsert(n)
	if len(n.owners) > 0 || n.deleting {
		gc.queue.Add(n.uid)
	}
	for _, o := range old {
		if n.ownerRef(o.UID) == nil {
			gc.queue.Add(o.UID)
		}
	}
	for _, o := range n.owners {
		if owner, ok := gc.graph.get(o.UID); ok && owner.waitingForDependents() {
			gc.queue.Add(o.UID) // this dependent may have stopped blocking it
		}
	}
}

// forget drops a deleted object and queues its dependents (their owner
// may be gone) and its owners (one deleting in the foreground may be
// waiting for it).
func (gc *Controller) forget(uid meta.UID) {
	n, ok := gc.graph.remove(uid)
	for _, d := range gc.graph.dependentUIDs(uid) {
		gc.queue.Add(d)
	}
	if ok {
		for _, o := range n.owners {
			gc.queue.Add(o.UID)
		}
	}
}

func (gc *Controller) worker(ctx context.Context) {
	for {
		uid, err := gc.queue.Get(ctx)
		if err != nil {
			return
		}
		retryAfter, err := gc.process(ctx, uid)
		switch {
		case err != nil && ctx.Err() == nil:
			gc.opts.Logger.Warn("processing failed; retrying", "uid", uid, "err", err)
			gc.queue.AddRateLimited(uid)
		case retryAfter > 0:
			gc.queue.Forget(uid)
			gc.queue.AddAfter(uid, retryAfter)
		default:
			gc.queue.Forget(uid)
		}
		gc.queue.Done(uid)
	}
}

// absentOwners remembers owner UIDs a live GET found absent. UIDs are
// never reused, so an absent owner stays absent: the dependents of one
// deleted owner need one GET, not one each. The set is bounded (it is
// emptied when full). Safe for concurrent use.
type absentOwners struct {
	mu  sync.Mutex
	set map[meta.UID]struct{}
}

const maxAbsentOwners = 10000

func (a *absentOwners) has(uid meta.UID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.set[uid]
	return ok
}

func (a *absentOwners) add(uid meta.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.set == nil || len(a.set) >= maxAbsentOwners {
		a.set = map[meta.UID]struct{}{}
	}
	a.set[uid] = struct{}{}
}

// unknownKinds remembers, until a deadline, owner kinds discovery did not
// know. Safe for concurrent use.
type unknownKinds struct {
	mu    sync.Mutex
	until map[meta.GroupVersionKind]time.Time
}

func (u *unknownKinds) has(gvk meta.GroupVersionKind, now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	t, ok := u.until[gvk]
	return ok && now.Before(t)
}

func (u *unknownKinds) add(gvk meta.GroupVersionKind, now time.Time, d time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.until == nil {
		u.until = map[meta.GroupVersionKind]time.Time{}
	}
	for k, t := range u.until {
		if !now.Before(t) {
			delete(u.until, k) // expired
		}
	}
	u.until[gvk] = now.Add(d)
}
