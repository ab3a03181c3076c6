package proxy

import (
	"context"
	"log/slog"
	"sync"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// Cache watches every Service and EndpointSlice through one client and
// keeps them in memory, as kube-proxy and CoreDNS read them; the proxy and
// the cluster DNS server each own one.
// Changed signals (coalesced) after every change. Run owns the informers'
// goroutines; the other methods are safe for concurrent use.
type Cache struct {
	svcs    *informer.Informer[*core.Service]
	eps     *informer.Informer[*discovery.EndpointSlice]
	changed chan struct{}
	regs    []*informer.Registration
	once    sync.Once
}

// NewCache returns a cache reading through c; Run starts it.
func NewCache(c *client.Client, logger *slog.Logger) *Cache {
	if logger == nil {
		logger = slog.Default()
	}
	svcs := informer.New[*core.Service](informer.NewListerWatcher(client.For[core.Service](c, ""), "", ""),
		informer.Config[*core.Service]{Name: "services", Logger: logger, Transform: func(s *core.Service) (*core.Service, error) {
			s.ManagedFields = nil
			return s, nil
		}})
	eps := informer.New[*discovery.EndpointSlice](informer.NewListerWatcher(client.For[discovery.EndpointSlice](c, ""), "", ""),
		informer.Config[*discovery.EndpointSlice]{Name: "endpointslices", Logger: logger, Transform: func(e *discovery.EndpointSlice) (*discovery.EndpointSlice, error) {
			e.ManagedFields = nil
			return e, nil
		}})
	ch := &Cache{svcs: svcs, eps: eps, changed: make(chan struct{}, 1)}
	ch.regs = append(ch.regs, svcs.AddEventHandler(handlerOf[*core.Service](ch.notify)), eps.AddEventHandler(handlerOf[*discovery.EndpointSlice](ch.notify)))
	return ch
}

func handlerOf[T any](f func()) informer.HandlerFuncs[T] {
	return informer.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { f() },
		UpdateFunc: func(T, T) { f() },
		DeleteFunc: func(any) { f() },
	}
}

func (c *Cache) notify() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Run runs the informers until ctx is done; call it once.
func (c *Cache) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { _ = c.svcs.Run(ctx) })
	wg.Go(func() { _ = c.eps.Run(ctx) })
	wg.Wait()
}

// WaitSynced waits for the first list of both kinds; false if ctx ended.
func (c *Cache) WaitSynced(ctx context.Context) bool {
	return informer.WaitForCacheSync(ctx, c.regs[0].HasSynced, c.regs[1].HasSynced)
}

// Changed receives a value after one or more changes; one reader only.
func (c *Cache) Changed() <-chan struct{} { return c.changed }

// Snapshot returns the cached Services and their endpoints, the
// EndpointSlices of each Service joined into one Endpoints value
// (EndpointsFromSlices); the Services are shared with the cache and must
// not be changed.
func (c *Cache) Snapshot() ([]*core.Service, []*core.Endpoints) {
	return c.svcs.Lister().List(labels.Everything()), EndpointsFromSlices(c.eps.Lister().List(labels.Everything()))
}
