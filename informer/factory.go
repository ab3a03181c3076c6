package informer

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// Scope narrows an informer to a namespace and selectors; the zero value
// is every object of the resource.
type Scope struct {
	Namespace     string
	LabelSelector string
	FieldSelector string
}

// String is the scope's part of a factory key.
func (s Scope) String() string {
	return fmt.Sprintf("ns=%s,labels=%s,fields=%s", s.Namespace, s.LabelSelector, s.FieldSelector)
}

// Factory shares informers: one list+watch per resource and scope per
// process, however many users ask for it. The factory owns the informers'
// goroutines: Start runs them under its context, Stop ends one (freeing
// its cache), Shutdown ends all. Safe for concurrent use.
type Factory struct {
	mu      sync.Mutex
	entries map[string]*factoryEntry
	ctx     context.Context // nil until Start
	wg      sync.WaitGroup
}

type factoryEntry struct {
	inf    runnable
	cancel context.CancelFunc // nil while not running
	done   chan struct{}
}

type runnable interface {
	Run(ctx context.Context) error
	HasSynced() bool
}

// NewFactory returns an empty Factory.
func NewFactory() *Factory { return &Factory{entries: map[string]*factoryEntry{}} }

// InformerFor returns the factory's informer named name (a resource and
// scope, e.g. "configmaps|ns=default"), creating it with newLW and opts if
// there is none; later callers share the first one and their opts are
// ignored. A new informer starts at once if the factory is started. The
// name must always be used with the same T, else ErrTypeMismatch.
func InformerFor[T meta.Object](f *Factory, name string, newLW func() (ListerWatcher[T], error), opts Config[T]) (*Informer[T], error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.entries[name]; ok {
		inf, ok := e.inf.(*Informer[T])
		if !ok {
			return nil, fmt.Errorf("%w: %q holds %T", ErrTypeMismatch, name, e.inf)
		}
		return inf, nil
	}
	lw, err := newLW()
	if err != nil {
		return nil, fmt.Errorf("informer %q: %w", name, err)
	}
	if opts.Name == "" {
		opts.Name = name
	}
	inf := New(lw, opts)
	e := &factoryEntry{inf: inf}
	f.entries[name] = e
	if f.ctx != nil && f.ctx.Err() == nil {
		f.startLocked(e)
	}
	return inf, nil
}

// ForResource is InformerFor with a ResourceListerWatcher over c for the
// resource of T in scope (ForResource[core.ConfigMap](f, c, Scope{}, opts));
// the informer's name is the resource and the scope, as
// ResourceName returns it. It fails, wrapping client.ErrNotRegistered,
// when T is not in the client's scheme.
func ForResource[T any, PT interface {
	*T
	meta.Object
}](f *Factory, c *client.Client, scope Scope, opts Config[PT]) (*Informer[PT], error) {
	res := client.For[T, PT](c, scope.Namespace)
	if res.GroupVersionResource().Resource == "" {
		var zero PT
		return nil, fmt.Errorf("informer: %w: %T", client.ErrNotRegistered, zero)
	}
	scope.Namespace = res.Namespace() // "" for a cluster-scoped kind
	name := ResourceName(res.GroupVersionResource(), scope)
	return InformerFor(f, name, func() (ListerWatcher[PT], error) {
		return NewListerWatcher(res, scope.LabelSelector, scope.FieldSelector), nil
	}, opts)
}

// ResourceName is the factory name of the informer of gvr in scope, the
// name ForResource gives it (and Stop takes).
func ResourceName(gvr meta.GroupVersionResource, scope Scope) string {
	return gvr.String() + "|" + scope.String()
}

// Start runs every informer not yet running, under ctx; informers added
// later start at once. Calling it again (e.g. after Stop) starts the rest.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ctx = ctx
	for _, e := range f.entries {
		if e.cancel == nil {
			f.startLocked(e)
		}
	}
}

func (f *Factory) startLocked(e *factoryEntry) {
	ctx, cancel := context.WithCancel(f.ctx)
	e.cancel, e.done = cancel, make(chan struct{})
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer close(e.done)
		_ = e.inf.Run(ctx)
	}()
}

// Stop stops the informer named name, waits until its cache is freed and
// forgets it: the next InformerFor makes a new one. It reports whether
// there was such an informer.
func (f *Factory) Stop(name string) bool {
	f.mu.Lock()
	e, ok := f.entries[name]
	delete(f.entries, name)
	f.mu.Unlock()
	if !ok {
		return false
	}
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
	return true
}

// Names returns the names of the factory's informers, sorted.
func (f *Factory) Names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.entries))
	for n := range f.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// WaitForCacheSync waits until every running informer has synced, or ctx
// is done, and returns each one's HasSynced.
func (f *Factory) WaitForCacheSync(ctx context.Context) map[string]bool {
	f.mu.Lock()
	infs := map[string]runnable{}
	for n, e := range f.entries {
		if e.cancel != nil {
			infs[n] = e.inf
		}
	}
	f.mu.Unlock()
	fns := make([]func() bool, 0, len(infs))
	for _, inf := range infs {
		fns = append(fns, inf.HasSynced)
	}
	WaitForCacheSync(ctx, fns...)
	out := make(map[string]bool, len(infs))
	for n, inf := range infs {
		out[n] = inf.HasSynced()
	}
	return out
}

// Shutdown stops every informer and waits for their goroutines.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	for _, e := range f.entries {
		if e.cancel != nil {
			e.cancel()
		}
	}
	f.ctx = nil
	f.mu.Unlock()
	f.wg.Wait()
	f.mu.Lock()
	for _, e := range f.entries {
		e.cancel = nil
	}
	f.mu.Unlock()
}
