package informer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func pod(ns, name, node string) *core.Pod {
	return &core.Pod{
		TypeMeta:   meta.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
		Spec:       core.PodSpec{NodeName: node},
	}
}

func podOptions() Config[*core.Pod] {
	return Config[*core.Pod]{Name: "pods", Logger: quietLogger(), InitialBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
}

// start runs inf until the test ends and waits for it to sync.
func start[T meta.Object](t *testing.T, inf *Informer[T]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, inf.Run(ctx))
	}()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	require.True(t, WaitForCacheSync(sctx, inf.HasSynced))
	return stop
}

func TestInformerRelistOnErrorFrameDeliversDiff(t *testing.T) {
	for _, frames := range []bool{false, true} {
		t.Run(fmt.Sprintf("errorFrame=%v", frames), func(t *testing.T) {
			lw := newMemLW[*core.Pod](1000)
			lw.errorFrames = frames
			for _, n := range []string{"a", "b", "c"} {
				lw.put(pod("ns", n, ""))
			}
			inf := New[*core.Pod](lw, podOptions())
			rec := newRecorder[*core.Pod]()
			inf.AddEventHandler(rec)
			start(t, inf)
			// While disconnected: b changes, c goes, d comes; then the
			// history is lost, so the resume gets 410.
			lw.cut()
			lw.put(pod("ns", "b", "node-1"))
			lw.remove("ns/c")
			lw.put(pod("ns", "d", ""))
			lw.expire()
			waitFor(t, 30*time.Second, func() bool { return len(rec.snapshot()) == 3 && rec.snapshot()["ns/d"] != "" }, "diff delivered")
			rec.mu.Lock()
			defer rec.mu.Unlock()
			assert.Equal(t, []string{"add ns/a", "add ns/b", "add ns/c", "update ns/b", "add ns/d", "tombstone ns/c"}, rec.events)
			assert.Equal(t, int64(1), inf.Stats().GoneErrors)
		})
	}
}

func TestInformerPaginatedListRestartsOnExpiredContinue(t *testing.T) {
	lw := newMemLW[*core.Pod](100)
	for i := range 25 {
		lw.put(pod("ns", fmt.Sprintf("p%02d", i), ""))
	}
	lw.expireNext = 1
	opts := podOptions()
	opts.PageSize = 10
	inf := New[*core.Pod](lw, opts)
	start(t, inf)
	assert.Equal(t, 25, inf.Indexer().Len())
	assert.Equal(t, 2, lw.listCount(), "one list restarted after its continue token expired")
}

func TestInformerTransform(t *testing.T) {
	lw := newMemLW[*core.Pod](100)
	p := pod("ns", "a", "")
	p.ManagedFields = []meta.ManagedFieldsEntry{{Manager: "kubectl"}}
	p.Annotations = map[string]string{"big": "x"}
	lw.put(p)
	lw.put(pod("ns", "bad", ""))
	opts := podOptions()
	opts.Transform = func(p *core.Pod) (*core.Pod, error) {
		if p.Name == "bad" {
			return nil, errors.New("refused")
		}
		p.ManagedFields, p.Annotations = nil, nil
		return p, nil
	}
	inf := New[*core.Pod](lw, opts)
	start(t, inf)
	got, err := inf.Lister().Get("ns", "a")
	require.NoError(t, err)
	assert.Nil(t, got.ManagedFields)
	assert.Nil(t, got.Annotations)
	_, err = inf.Lister().Get("ns", "bad")
	assert.ErrorIs(t, err, ErrNotFound, "an object the transform fails on is skipped")
	lw.put(p)
	waitFor(t, 30*time.Second, func() bool { g, _ := inf.Lister().Get("ns", "a"); return g.ResourceVersion == p.ResourceVersion }, "update")
	got, _ = inf.Lister().Get("ns", "a")
	assert.Nil(t, got.ManagedFields, "watch events are transformed too")
}

func TestInformerResync(t *testing.T) {
	lw := newMemLW[*core.Pod](100)
	lw.put(pod("ns", "a", ""))
	lw.put(pod("ns", "b", ""))
	inf := New[*core.Pod](lw, podOptions())
	var resyncs atomic.Int64
	inf.AddEventHandler(HandlerFuncs[*core.Pod]{UpdateFunc: func(o, n *core.Pod) {
		if o == n {
			resyncs.Add(1)
		}
	}}, WithResync(10*time.Millisecond))
	quiet := newRecorder[*core.Pod]()
	inf.AddEventHandler(quiet)
	start(t, inf)
	waitFor(t, 30*time.Second, func() bool { return resyncs.Load() >= 4 }, "two resyncs of two objects")
	_, updates, _, _ := quiet.counts()
	assert.Zero(t, updates, "a handler without resync gets none")
}

func TestInformerHandlerAddedLateAndRemoved(t *testing.T) {
	lw := newMemLW[*core.Pod](100)
	lw.put(pod("ns", "a", ""))
	inf := New[*core.Pod](lw, podOptions())
	start(t, inf)
	rec := newRecorder[*core.Pod]()
	reg := inf.AddEventHandler(rec)
	waitFor(t, 30*time.Second, reg.HasSynced, "late handler synced")
	assert.Equal(t, 1, rec.initialAdds)
	reg.Remove()
	lw.put(pod("ns", "b", ""))
	other := newRecorder[*core.Pod]()
	inf.AddEventHandler(other)
	waitFor(t, 30*time.Second, func() bool { return len(other.snapshot()) == 2 }, "b seen by the other handler")
	adds, _, _, _ := rec.counts()
	assert.Equal(t, 1, adds, "a removed handler gets nothing more")
}

func TestInformerSlowHandlerStallsNobody(t *testing.T) {
	lw := newMemLW[*core.Pod](10000)
	inf := New[*core.Pod](lw, podOptions())
	release := make(chan struct{})
	var slowSeen atomic.Int64
	slow := inf.AddEventHandler(HandlerFuncs[*core.Pod]{AddFunc: func(*core.Pod, bool) {
		<-release
		slowSeen.Add(1)
	}})
	fast := newRecorder[*core.Pod]()
	inf.AddEventHandler(fast)
	start(t, inf)
	for i := range 500 {
		lw.put(pod("ns", fmt.Sprintf("p%d", i), ""))
	}
	waitFor(t, 30*time.Second, func() bool { return len(fast.snapshot()) == 500 }, "fast handler saw everything")
	assert.Equal(t, 499, slow.Pending(), "the slow handler's backlog is buffered and counted")
	assert.GreaterOrEqual(t, inf.Pending(), 499)
	close(release)
	waitFor(t, 30*time.Second, func() bool { return slowSeen.Load() == 500 }, "slow handler catches up")
	assert.Equal(t, 0, slow.Pending())
	assert.GreaterOrEqual(t, slow.MaxPending(), int64(499))
	assert.Equal(t, int64(500), slow.Delivered())
}

func TestInformerStopFreesCacheAndRestarts(t *testing.T) {
	lw := newMemLW[*core.Pod](100)
	lw.put(pod("ns", "a", ""))
	inf := New[*core.Pod](lw, podOptions())
	rec := newRecorder[*core.Pod]()
	inf.AddEventHandler(rec)
	stop := start(t, inf)
	ctx := context.Background()
	assert.ErrorIs(t, inf.Run(ctx), ErrAlreadyRunning)
	// Stopping drops what handlers have not been given yet: wait for the
	// first delivery so the count below is deterministic.
	waitFor(t, 30*time.Second, func() bool { return rec.initial() == 1 }, "first list delivered")
	stop()
	assert.False(t, inf.HasSynced())
	assert.Zero(t, inf.Indexer().Len(), "a stopped informer frees its cache")
	lw.put(pod("ns", "b", ""))
	start(t, inf)
	assert.Equal(t, 2, inf.Indexer().Len())
	waitFor(t, 30*time.Second, func() bool { return rec.initial() == 3 }, "relisted after restart")
}

func TestInformerSkipsInvalidEvents(t *testing.T) {
	sink := informerSink[*core.Pod]{New[*core.Pod](nil, podOptions())}
	assert.ErrorIs(t, sink.Replace([]*core.Pod{pod("ns", "", "")}, "1"), ErrInvalidObject)
	assert.Error(t, sink.Apply(Event[*core.Pod]{Type: Bookmark, Object: pod("ns", "a", "")}))
	r := NewReflector[*core.Pod](nil, sink, ReflectorConfig[*core.Pod]{Logger: quietLogger()})
	assert.NoError(t, r.handle(Event[*core.Pod]{Type: Added}), "a nil object is logged and skipped")
	assert.NoError(t, r.handle(Event[*core.Pod]{Type: Bookmark}))
	assert.ErrorIs(t, r.handle(Event[*core.Pod]{Type: "BOGUS"}), ErrDecode)
	assert.Error(t, r.handle(Event[*core.Pod]{Type: Error}))
	assert.Zero(t, sink.i.Indexer().Len())
}

func TestFactorySharesOneInformerPerResource(t *testing.T) {
	lw := newMemLW[*core.Pod](100)
	lw.put(pod("ns", "a", ""))
	f := NewFactory()
	defer f.Shutdown()
	made := 0
	newLW := func() (ListerWatcher[*core.Pod], error) { made++; return lw, nil }
	var infs []*Informer[*core.Pod]
	for range 3 {
		inf, err := InformerFor(f, "pods", newLW, podOptions())
		require.NoError(t, err)
		infs = append(infs, inf)
	}
	assert.Same(t, infs[0], infs[1])
	assert.Same(t, infs[0], infs[2])
	assert.Equal(t, 1, made)
	_, err := InformerFor(f, "pods", func() (ListerWatcher[*core.ConfigMap], error) { return nil, nil }, Config[*core.ConfigMap]{})
	assert.ErrorIs(t, err, ErrTypeMismatch)

	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx)
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	assert.Equal(t, map[string]bool{"pods": true}, f.WaitForCacheSync(wctx))
	assert.Equal(t, 1, lw.listCount(), "one list however many users")
	wg.Wait()

	// An informer asked for after Start starts at once.
	late, err := InformerFor(f, "pods-late", newLW, podOptions())
	require.NoError(t, err)
	require.True(t, WaitForCacheSync(wctx, late.HasSynced))
	assert.Equal(t, []string{"pods", "pods-late"}, f.Names())

	assert.True(t, f.Stop("pods"))
	assert.False(t, f.Stop("pods"))
	assert.Zero(t, infs[0].Indexer().Len(), "stopped informer freed its cache")
	assert.Equal(t, []string{"pods-late"}, f.Names())
	_, err = InformerFor(f, "broken", func() (ListerWatcher[*core.Pod], error) { return nil, errors.New("no") }, podOptions())
	assert.Error(t, err)
}
