package controller

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/informer"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fakeLW is an in-memory ListerWatcher of ConfigMaps: List returns what
// it holds, and set/remove change it and tell every open watch.
type fakeLW struct {
	mu       sync.Mutex
	rv       int
	items    map[string]*core.ConfigMap
	watchers map[chan informer.Event[*core.ConfigMap]]struct{}
	listErr  error
}

func newFakeLW(cms ...*core.ConfigMap) *fakeLW {
	lw := &fakeLW{items: map[string]*core.ConfigMap{}, watchers: map[chan informer.Event[*core.ConfigMap]]struct{}{}}
	for _, cm := range cms {
		lw.set(cm)
	}
	return lw
}

func (lw *fakeLW) List(context.Context, informer.ListOptions) ([]*core.ConfigMap, string, string, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.listErr != nil {
		return nil, "", "", lw.listErr
	}
	out := make([]*core.ConfigMap, 0, len(lw.items))
	for _, cm := range lw.items {
		out = append(out, meta.DeepCopy(cm))
	}
	return out, strconv.Itoa(lw.rv), "", nil
}

// Watch forwards events until ctx ends, then closes the channel.
func (lw *fakeLW) Watch(ctx context.Context, _ informer.ListOptions) (<-chan informer.Event[*core.ConfigMap], error) {
	in := make(chan informer.Event[*core.ConfigMap], 1024)
	out := make(chan informer.Event[*core.ConfigMap])
	lw.mu.Lock()
	lw.watchers[in] = struct{}{}
	lw.mu.Unlock()
	go func() {
		defer close(out)
		defer func() {
			lw.mu.Lock()
			delete(lw.watchers, in)
			lw.mu.Unlock()
		}()
		for {
			select {
			case ev := <-in:
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

func (lw *fakeLW) emit(typ string, cm *core.ConfigMap) {
	for w := range lw.watchers {
		w <- informer.Event[*core.ConfigMap]{Type: typ, Object: meta.DeepCopy(cm)}
	}
}

// set creates or updates cm with a new resourceVersion.
func (lw *fakeLW) set(cm *core.ConfigMap) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.rv++
	cm = meta.DeepCopy(cm)
	cm.ResourceVersion = strconv.Itoa(lw.rv)
	key := informer.KeyOf(cm)
	typ := informer.Added
	if _, ok := lw.items[key]; ok {
		typ = informer.Modified
	}
	lw.items[key] = cm
	lw.emit(typ, cm)
}

func (lw *fakeLW) remove(ns, name string) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	key := ns + "/" + name
	cm, ok := lw.items[key]
	if !ok {
		return
	}
	delete(lw.items, key)
	lw.rv++
	cm.ResourceVersion = strconv.Itoa(lw.rv)
	lw.emit(informer.Deleted, cm)
}

func newCM(ns, name string, owner *meta.OwnerReference) *core.ConfigMap {
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}}
	if owner != nil {
		cm.OwnerReferences = []meta.OwnerReference{*owner}
	}
	return cm
}

// runInformer runs inf until the test ends and waits for its cache.
func runInformer[T meta.Object](t *testing.T, inf *informer.Informer[T]) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = inf.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	require.True(t, informer.WaitForCacheSync(sctx, inf.HasSynced), "informer cache sync")
}

// runController runs c until the test ends (or stop is called) and
// returns stop, which waits for Run to return and hands back its error.
func runController(t *testing.T, c *Controller) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-errc })
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// eventually polls cond every 5 ms until it holds or d passes.
func eventually(t *testing.T, d time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out after %v: "+msg, append([]any{d}, args...)...)
		case <-tick.C:
		}
	}
}

// recorder is a Reconciler that counts calls per request and answers
// with a per-call function.
type recorder struct {
	mu     sync.Mutex
	calls  map[Request]int
	order  []Request
	answer func(req Request, n int) (Result, error) // n counts from 1
}

func newRecorder(answer func(Request, int) (Result, error)) *recorder {
	return &recorder{calls: map[Request]int{}, answer: answer}
}

func (r *recorder) Reconcile(_ context.Context, req Request) (Result, error) {
	r.mu.Lock()
	r.calls[req]++
	n := r.calls[req]
	r.order = append(r.order, req)
	r.mu.Unlock()
	if r.answer == nil {
		return Result{}, nil
	}
	return r.answer(req, n)
}

func (r *recorder) count(req Request) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[req]
}

var errBoom = errors.New("boom")

func ptr[T any](v T) *T { return &v }
