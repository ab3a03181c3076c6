package informer

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/meta"
)

// Config configures an Informer; the zero value is usable.
type Config[T meta.Object] struct {
	// Name names the resource in logs (e.g. "configmaps").
	Name string
	// Indexers are the cache's indexes; NamespaceIndex is always added.
	Indexers Indexers[T]
	// Transform is applied to every object before it is cached (to save
	// memory: drop managedFields, annotations, ...). It may modify and
	// return its argument, which the informer owns. An object it fails on
	// is skipped.
	Transform func(T) (T, error)
	// ResyncPeriod is the default period at which handlers are re-handed
	// every cached object as OnUpdate(obj, obj); 0 means never.
	ResyncPeriod time.Duration
	// PageSize, InitialBackoff, MaxBackoff and WatchTimeout tune the
	// reflector (see ReflectorConfig).
	PageSize                   int64
	InitialBackoff, MaxBackoff time.Duration
	WatchTimeout               time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Informer keeps an indexed cache of one resource in step with the server
// and tells handlers what changed. Guarantees (those of client-go's
// SharedInformer):
//
//   - The cache converges to the server's state: after the watch stops and
//     the informer lists again it holds exactly what the server holds.
//   - Each handler sees changes in the order the cache applied them, one
//     call at a time on its own goroutine; the last object a handler was
//     handed for a key (minus deletes) is the cache's object for it.
//   - A relist after a 410 hands handlers only differences: adds of new
//     keys, updates of objects whose resourceVersion changed, and deletes of
//     vanished keys as DeletedFinalStateUnknown — no duplicate adds.
//   - A slow handler delays nobody: its buffer grows (see Pending).
//
// Run starts it and blocks; when Run returns the cache is freed and
// HasSynced is false; Run may be called again later. Handlers may be added
// and removed at any time. All methods are safe for concurrent use.
type Informer[T meta.Object] struct {
	lw      ListerWatcher[T]
	opts    Config[T]
	indexer *Indexer[T]

	mu        sync.Mutex // orders cache changes with notifications
	listeners map[*listener[T]]struct{}
	running   bool
	accepting bool // running and not stopping: new listeners get goroutines
	runCtx    context.Context
	runWG     *sync.WaitGroup
	reflector *Reflector[T]
	synced    atomic.Bool
	kick      chan struct{}
}

// New returns a stopped Informer reading through lw.
func New[T meta.Object](lw ListerWatcher[T], opts Config[T]) *Informer[T] {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	idx := Indexers[T]{NamespaceIndex: IndexByNamespace[T]}
	for name, f := range opts.Indexers {
		idx[name] = f
	}
	return &Informer[T]{lw: lw, opts: opts, indexer: NewIndexer(idx),
		listeners: map[*listener[T]]struct{}{}, kick: make(chan struct{}, 1)}
}

// Indexer returns the cache. Its objects are shared: read-only.
func (i *Informer[T]) Indexer() *Indexer[T] { return i.indexer }

// Lister returns a typed lister over the cache.
func (i *Informer[T]) Lister() Lister[T] { return NewLister(i.indexer) }

// HasSynced reports whether the first complete list of the current Run is
// in the cache.
func (i *Informer[T]) HasSynced() bool { return i.synced.Load() }

// LastSyncResourceVersion returns the resourceVersion the cache reflects
// ("" before the first list).
func (i *Informer[T]) LastSyncResourceVersion() string {
	if r := i.currentReflector(); r != nil {
		return r.LastResourceVersion()
	}
	return ""
}

// Stats returns the reflector's counters of the current (or last) Run.
func (i *Informer[T]) Stats() ReflectorStats {
	if r := i.currentReflector(); r != nil {
		return r.Stats()
	}
	return ReflectorStats{}
}

func (i *Informer[T]) currentReflector() *Reflector[T] {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.reflector
}

// Pending returns the events waiting in all handlers' buffers.
func (i *Informer[T]) Pending() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	n := 0
	for l := range i.listeners {
		n += l.pending()
	}
	return n
}

// Run lists and watches until ctx is done, then stops the handlers'
// goroutines, frees the cache and returns nil. It returns
// ErrAlreadyRunning if the informer is running.
func (i *Informer[T]) Run(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, wg, err := i.start(runCtx)
	if err != nil {
		return err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		i.resyncLoop(runCtx)
	}()
	_ = r.Run(runCtx)
	cancel()
	i.mu.Lock()
	i.accepting = false // no wg.Add may race with the Wait below
	i.mu.Unlock()
	wg.Wait()
	i.stop()
	return nil
}

func (i *Informer[T]) start(ctx context.Context) (*Reflector[T], *sync.WaitGroup, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.running {
		return nil, nil, ErrAlreadyRunning
	}
	i.running, i.accepting, i.runCtx, i.runWG = true, true, ctx, &sync.WaitGroup{}
	for l := range i.listeners {
		i.startListener(l)
	}
	i.reflector = NewReflector(i.lw, informerSink[T]{i}, ReflectorConfig[T]{
		PageSize: i.opts.PageSize, Transform: i.opts.Transform, InitialBackoff: i.opts.InitialBackoff,
		MaxBackoff: i.opts.MaxBackoff, WatchTimeout: i.opts.WatchTimeout, Logger: i.opts.Logger, Name: i.opts.Name,
	})
	return i.reflector, i.runWG, nil
}

func (i *Informer[T]) startListener(l *listener[T]) {
	i.runWG.Add(1)
	go func() {
		defer i.runWG.Done()
		l.run(i.runCtx)
	}()
}

func (i *Informer[T]) stop() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.running, i.runCtx, i.runWG = false, nil, nil
	i.synced.Store(false)
	i.indexer.Clear()
	for l := range i.listeners {
		l.drop()
	}
}

// HandlerOption configures one handler.
type HandlerOption func(*handlerConfig)

type handlerConfig struct{ resync time.Duration }

// WithResync sets the handler's resync period (0: never), overriding
// Config.ResyncPeriod.
func WithResync(d time.Duration) HandlerOption {
	return func(c *handlerConfig) { c.resync = d }
}

// AddEventHandler registers h. If the cache has synced, h is first handed
// every cached object as OnAdd(obj, true). The returned Registration
// reports h's progress and removes it.
func (i *Informer[T]) AddEventHandler(h Handler[T], opts ...HandlerOption) *Registration {
	cfg := handlerConfig{resync: i.opts.ResyncPeriod}
	for _, o := range opts {
		o(&cfg)
	}
	l := newListener(h, cfg.resync)
	i.mu.Lock()
	i.listeners[l] = struct{}{}
	if i.synced.Load() {
		for _, obj := range i.indexer.List() {
			l.push(notification[T]{kind: notifyAdd, new: obj, initial: true})
		}
	}
	if cfg.resync > 0 {
		l.nextResync = time.Now().Add(cfg.resync)
	}
	if i.accepting {
		i.startListener(l)
	}
	i.mu.Unlock()
	i.kickResync()
	return &Registration{
		hasSynced:  func() bool { return i.synced.Load() && l.initialPending.Load() == 0 },
		pending:    l.pending,
		maxPending: l.maxPending.Load,
		delivered:  l.delivered.Load,
		remove:     func() { i.removeListener(l) },
	}
}

func (i *Informer[T]) removeListener(l *listener[T]) {
	i.mu.Lock()
	delete(i.listeners, l)
	i.mu.Unlock()
	l.removed.Store(true)
	l.drop()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (i *Informer[T]) notify(n notification[T]) {
	for l := range i.listeners {
		l.push(n)
	}
}

func (i *Informer[T]) kickResync() {
	select {
	case i.kick <- struct{}{}:
	default:
	}
}

// resyncLoop re-hands cached objects to handlers whose resync is due.
func (i *Informer[T]) resyncLoop(ctx context.Context) {
	for {
		next := i.resyncDue(time.Now())
		var timerC <-chan time.Time
		var t *time.Timer
		if !next.IsZero() {
			t = time.NewTimer(time.Until(next))
			timerC = t.C
		}
		select {
		case <-ctx.Done():
		case <-i.kick:
		case <-timerC:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// resyncDue resyncs the due handlers and returns the next due time (zero: none).
func (i *Informer[T]) resyncDue(now time.Time) time.Time {
	i.mu.Lock()
	defer i.mu.Unlock()
	var next time.Time
	var objs []T
	for l := range i.listeners {
		if l.resync <= 0 {
			continue
		}
		if !now.Before(l.nextResync) {
			if i.synced.Load() {
				if objs == nil {
					objs = i.indexer.List()
				}
				for _, o := range objs {
					l.push(notification[T]{kind: notifyUpdate, old: o, new: o})
				}
			}
			l.nextResync = now.Add(l.resync)
		}
		if next.IsZero() || l.nextResync.Before(next) {
			next = l.nextResync
		}
	}
	return next
}

// informerSink is the Informer seen by its Reflector.
type informerSink[T meta.Object] struct{ i *Informer[T] }

// Replace diffs a complete list against the cache and notifies the
// differences.
func (s informerSink[T]) Replace(items []T, _ string) error {
	i := s.i
	i.mu.Lock()
	defer i.mu.Unlock()
	initial := !i.synced.Load()
	seen := make(map[string]struct{}, len(items))
	var firstErr error
	for _, obj := range items {
		if err := validObject(obj); err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		key := KeyOf(obj)
		seen[key] = struct{}{}
		if old, ok := i.indexer.Get(key); ok && sameVersion(old, obj) {
			continue
		}
		old, existed, err := i.indexer.Put(obj)
		if err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		if existed {
			i.notify(notification[T]{kind: notifyUpdate, old: old, new: obj})
		} else {
			i.notify(notification[T]{kind: notifyAdd, new: obj, initial: initial})
		}
	}
	for _, key := range i.indexer.ListKeys() {
		if _, ok := seen[key]; ok {
			continue
		}
		if old, ok := i.indexer.Delete(key); ok {
			i.notify(notification[T]{kind: notifyDelete, deleted: DeletedFinalStateUnknown[T]{Key: key, Obj: old}})
		}
	}
	i.synced.Store(true)
	return firstErr
}

func cmpErr(first, err error) error {
	if first == nil {
		return err
	}
	return first
}

func sameVersion[T meta.Object](a, b T) bool {
	ra := a.GetObjectMeta().ResourceVersion
	return ra != "" && ra == b.GetObjectMeta().ResourceVersion
}

// Apply applies one watch event to the cache and notifies it.
func (s informerSink[T]) Apply(ev Event[T]) error {
	i := s.i
	i.mu.Lock()
	defer i.mu.Unlock()
	key := KeyOf(ev.Object)
	switch ev.Type {
	case Added, Modified:
		old, existed := i.indexer.Get(key)
		if existed && sameVersion(old, ev.Object) {
			return nil
		}
		if _, _, err := i.indexer.Put(ev.Object); err != nil {
			return err
		}
		if existed {
			i.notify(notification[T]{kind: notifyUpdate, old: old, new: ev.Object})
		} else {
			i.notify(notification[T]{kind: notifyAdd, new: ev.Object})
		}
	case Deleted:
		if _, existed := i.indexer.Delete(key); existed {
			i.notify(notification[T]{kind: notifyDelete, deleted: ev.Object})
		}
	default:
		return fmt.Errorf("%w: cannot apply a %q event", ErrDecode, ev.Type)
	}
	return nil
}

// WaitForCacheSync waits until every synced function reports true (pass
// informers' or registrations' HasSynced) and returns true, or returns
// false once ctx is done.
func WaitForCacheSync(ctx context.Context, synced ...func() bool) bool {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		all := true
		for _, f := range synced {
			if !f() {
				all = false
				break
			}
		}
		if all {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}
