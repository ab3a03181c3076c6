package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/informer/workqueue"
)

const wait = 10 * time.Second

func newInformer(t *testing.T, lw *fakeLW) *informer.Informer[*core.ConfigMap] {
	t.Helper()
	inf := informer.New[*core.ConfigMap](lw, informer.Config[*core.ConfigMap]{Name: "configmaps", Logger: quietLogger(),
		InitialBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	runInformer(t, inf)
	return inf
}

func newController(t *testing.T, r Reconciler, cfg Config) *Controller {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	c, err := New("test", r, cfg)
	require.NoError(t, err)
	return c
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cname string
		r     Reconciler
	}{
		{"empty name", "", ReconcilerFunc(func(context.Context, Request) (Result, error) { return Result{}, nil })},
		{"nil reconciler", "x", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cname, tc.r, Config{})
			assert.ErrorIs(t, err, ErrInvalidConfig)
		})
	}
}

func TestWatchObjectsReconcilesEveryKey(t *testing.T) {
	lw := newFakeLW(newCM("a", "one", nil), newCM("b", "two", nil))
	inf := newInformer(t, lw)
	rec := newRecorder(nil)
	c := newController(t, rec, Config{})
	WatchObjects(c, inf)
	runController(t, c)
	one, two, three := Request{"a", "one"}, Request{"b", "two"}, Request{"a", "three"}
	eventually(t, wait, func() bool { return rec.count(one) >= 1 && rec.count(two) >= 1 }, "initial list reconciled")

	lw.set(newCM("a", "three", nil))
	eventually(t, wait, func() bool { return rec.count(three) >= 1 }, "added object reconciled")
	n1, n2 := rec.count(one), rec.count(two)
	lw.set(newCM("a", "one", nil))
	eventually(t, wait, func() bool { return rec.count(one) > n1 }, "updated object reconciled")
	lw.remove("b", "two")
	eventually(t, wait, func() bool { return rec.count(two) > n2 }, "deleted object reconciled")
}

func TestWatchOwnedMapsToControllingOwner(t *testing.T) {
	rs := func(name string, controller bool) *meta.OwnerReference {
		return &meta.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: "u", Controller: &controller}
	}
	lw := newFakeLW(
		newCM("ns", "dep-1", rs("web", true)),
		newCM("ns", "dep-2", rs("web", true)),
		newCM("ns", "dep-3", rs("api", false)), // not the controller
		newCM("ns", "plain", nil),
	)
	inf := newInformer(t, lw)
	rec := newRecorder(nil)
	c := newController(t, rec, Config{})
	WatchOwned(c, inf, OwnerKind{Group: "apps", Kind: "ReplicaSet"})
	runController(t, c)
	eventually(t, wait, func() bool { return rec.count(Request{"ns", "web"}) >= 1 }, "owner reconciled")

	lw.set(newCM("ns", "dep-4", rs("db", true)))
	eventually(t, wait, func() bool { return rec.count(Request{"ns", "db"}) >= 1 }, "new owner reconciled")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for req := range rec.calls {
		assert.Contains(t, []string{"web", "db"}, req.Name, "only controlling owners are reconciled")
	}
}

func TestEnqueueOwner(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name string
		refs []meta.OwnerReference
		want []Request
	}{
		{"no owners", nil, nil},
		{"controller of the kind", []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", Controller: &yes}}, []Request{{"ns", "rs"}}},
		{"version ignored", []meta.OwnerReference{{APIVersion: "apps/v1beta2", Kind: "ReplicaSet", Name: "rs", Controller: &yes}}, []Request{{"ns", "rs"}}},
		{"not controller", []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", Controller: &no}}, nil},
		{"controller unset", []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs"}}, nil},
		{"other kind", []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", Controller: &yes}}, nil},
		{"other group", []meta.OwnerReference{{APIVersion: "extensions/v1beta1", Kind: "ReplicaSet", Name: "rs", Controller: &yes}}, nil},
		{"core group is not apps", []meta.OwnerReference{{APIVersion: "v1", Kind: "ReplicaSet", Name: "rs", Controller: &yes}}, nil},
		{"empty owner name", []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Controller: &yes}}, nil},
		{"controller among others", []meta.OwnerReference{
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other"},
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", Controller: &yes},
		}, []Request{{"ns", "rs"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "x", OwnerReferences: tc.refs}}
			assert.Equal(t, tc.want, EnqueueOwner[*core.ConfigMap](OwnerKind{Group: "apps", Kind: "ReplicaSet"})(cm))
		})
	}
}

func TestEnqueueSelectingOwners(t *testing.T) {
	yes := true
	now := meta.NewTime(time.Unix(1000, 0))
	owner := func(ns, name string, sel *meta.LabelSelector) *core.Pod { // pods stand in for any owner kind
		return &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}, Spec: core.PodSpec{NodeSelector: sel.MatchLabels}}
	}
	ix := informer.NewIndexer[*core.Pod](nil)
	for _, o := range []*core.Pod{
		owner("ns", "web", &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}),
		owner("ns", "web-too", &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}),
		owner("ns", "all", &meta.LabelSelector{}), // empty: selects nothing
		owner("ns", "db", &meta.LabelSelector{MatchLabels: map[string]string{"app": "db"}}),
		owner("other", "web", &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}),
	} {
		_, _, err := ix.Put(o)
		require.NoError(t, err)
	}
	selector := func(o *core.Pod) *meta.LabelSelector { return &meta.LabelSelector{MatchLabels: o.Spec.NodeSelector} }
	orphan := func(mut func(*core.ConfigMap)) *core.ConfigMap {
		cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "x", Labels: map[string]string{"app": "web"}}}
		if mut != nil {
			mut(cm)
		}
		return cm
	}
	m := EnqueueSelectingOwners[*core.ConfigMap](informer.NewLister(ix), selector, nil)
	assert.ElementsMatch(t, []Request{{"ns", "web"}, {"ns", "web-too"}}, m(orphan(nil)))
	assert.Empty(t, m(orphan(func(cm *core.ConfigMap) { cm.Labels = nil })), "selected by none")
	assert.Empty(t, m(orphan(func(cm *core.ConfigMap) { cm.DeletionTimestamp = &now })), "being deleted")
	assert.Empty(t, m(orphan(func(cm *core.ConfigMap) {
		cm.OwnerReferences = []meta.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web", Controller: &yes}}
	})), "not an orphan")
	only := EnqueueSelectingOwners(informer.NewLister(ix), selector, func(o *core.Pod, _ *core.ConfigMap) bool { return o.Name == "web" })
	assert.Equal(t, []Request{{"ns", "web"}}, only(orphan(nil)), "accept narrows the owners")
}

func TestEnqueueClusterScopedOwner(t *testing.T) {
	yes := true
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "team-a", Name: "info",
		OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "team-a", Controller: &yes}}}}
	assert.Equal(t, []Request{{Name: "team-a"}}, EnqueueOwner[*core.ConfigMap](OwnerKind{Kind: "Namespace", ClusterScoped: true})(cm))
}

func FuzzEnqueueOwner(f *testing.F) {
	f.Add("apps/v1", "ReplicaSet", "rs", true, "apps", "ReplicaSet", false)
	f.Add("v1", "Namespace", "ns", true, "", "Namespace", true)
	f.Add("a/b/c", "", "", false, "a", "", false)
	f.Fuzz(func(t *testing.T, apiVersion, kind, name string, controller bool, group, ownerKind string, cluster bool) {
		cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "x",
			OwnerReferences: []meta.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &controller}}}}
		got := EnqueueOwner[*core.ConfigMap](OwnerKind{Group: group, Kind: ownerKind, ClusterScoped: cluster})(cm)
		if len(got) == 0 {
			return
		}
		if len(got) != 1 || !controller || kind != ownerKind || got[0].Name != name || name == "" {
			t.Fatalf("mapped %+v for ref %q %q %q controller=%v", got, apiVersion, kind, name, controller)
		}
		if wantNS := map[bool]string{true: "", false: "ns"}[cluster]; got[0].Namespace != wantNS {
			t.Fatalf("namespace %q, want %q", got[0].Namespace, wantNS)
		}
	})
}

func TestMapHandlerHandlesTombstonesAndUpdates(t *testing.T) {
	var got []Request
	h := mapHandler[*core.ConfigMap]{m: EnqueueObject[*core.ConfigMap], enqueue: func(r Request) { got = append(got, r) }}
	old, cur := newCM("ns", "a", nil), newCM("ns", "b", nil)
	h.OnUpdate(old, cur)
	h.OnDelete(informer.DeletedFinalStateUnknown[*core.ConfigMap]{Key: "ns/c", Obj: newCM("ns", "c", nil)})
	h.OnDelete(newCM("ns", "d", nil))
	h.OnDelete("not an object") // ignored
	assert.Equal(t, []Request{{"ns", "b"}, {"ns", "a"}, {"ns", "c"}, {"ns", "d"}}, got, "new object first")
}

func TestCustomMapper(t *testing.T) {
	lw := newFakeLW(newCM("ns", "fan-out", nil))
	inf := newInformer(t, lw)
	rec := newRecorder(nil)
	c := newController(t, rec, Config{})
	Watch(c, inf, func(cm *core.ConfigMap) []Request {
		return []Request{{Name: cm.Name + "-1"}, {Name: cm.Name + "-2"}}
	})
	runController(t, c)
	eventually(t, wait, func() bool {
		return rec.count(Request{Name: "fan-out-1"}) == 1 && rec.count(Request{Name: "fan-out-2"}) == 1
	}, "both mapped requests reconciled")
}

// fakeClockController runs a controller over one ConfigMap with a fake
// clock, so that retries and delays happen only when the test steps it.
func fakeClockController(t *testing.T, answer func(Request, int) (Result, error)) (*recorder, *workqueue.FakeClock, *Controller) {
	t.Helper()
	clock := workqueue.NewFakeClock(time.Unix(1_000_000, 0))
	inf := newInformer(t, newFakeLW(newCM("ns", "a", nil)))
	rec := newRecorder(answer)
	c := newController(t, rec, Config{Clock: clock})
	WatchObjects(c, inf)
	runController(t, c)
	return rec, clock, c
}

func TestErrorIsRetriedWithBackoff(t *testing.T) {
	req := Request{"ns", "a"}
	rec, clock, c := fakeClockController(t, func(_ Request, n int) (Result, error) {
		if n < 3 {
			return Result{}, errBoom
		}
		return Result{}, nil
	})
	for n := 1; n <= 2; n++ {
		eventually(t, wait, func() bool { return rec.count(req) == n && clock.Waiters() == 1 }, "failure %d scheduled a retry", n)
		clock.Step(time.Minute) // past any backoff
	}
	eventually(t, wait, func() bool { return rec.count(req) == 3 }, "third attempt")
	eventually(t, wait, func() bool {
		return counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultSuccess) == 1
	}, "success counted")
	assert.Equal(t, 2.0, counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultError))
	assert.Equal(t, 2.0, counter(t, c.Metrics(), "controller_reconcile_errors_total", "", ""))
	assert.Equal(t, 2.0, counter(t, c.Metrics(), "workqueue_retries_total", "", ""))
}

func TestTerminalErrorIsNotRetried(t *testing.T) {
	req := Request{"ns", "a"}
	rec, clock, c := fakeClockController(t, func(Request, int) (Result, error) {
		return Result{}, TerminalError(errBoom)
	})
	eventually(t, wait, func() bool {
		return counter(t, c.Metrics(), "controller_terminal_reconcile_errors_total", "", "") == 1
	}, "terminal error counted")
	assert.Equal(t, 0, clock.Waiters(), "nothing scheduled")
	assert.Equal(t, 0.0, counter(t, c.Metrics(), "workqueue_retries_total", "", ""))
	assert.Equal(t, 1, rec.count(req))
}

// TestConflictIsRequeuedQuietly: a 409 Conflict from a write is retried
// with backoff like an error, but logged at debug level only and counted
// as ResultConflict, not as an error.
func TestConflictIsRequeuedQuietly(t *testing.T) {
	req := Request{"ns", "a"}
	var logs lockedBuffer
	clock := workqueue.NewFakeClock(time.Unix(1_000_000, 0))
	inf := newInformer(t, newFakeLW(newCM("ns", "a", nil)))
	rec := newRecorder(func(_ Request, n int) (Result, error) {
		if n == 1 {
			conflict := apierrors.NewConflict(meta.GroupResource{Resource: "configmaps"}, "a",
				errors.New("the object has been modified; please apply your changes to the latest version and try again"))
			return Result{}, fmt.Errorf("update configmap ns/a: %w", conflict)
		}
		return Result{}, nil
	})
	c := newController(t, rec, Config{Clock: clock,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	WatchObjects(c, inf)
	runController(t, c)
	eventually(t, wait, func() bool { return rec.count(req) == 1 && clock.Waiters() == 1 }, "the conflict scheduled a retry")
	clock.Step(time.Minute)
	eventually(t, wait, func() bool {
		return counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultSuccess) == 1
	}, "retried and succeeded")
	assert.Equal(t, 1.0, counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultConflict))
	assert.Equal(t, 0.0, counter(t, c.Metrics(), "controller_reconcile_errors_total", "", ""))
	assert.NotContains(t, logs.String(), "level=ERROR")
	assert.NotContains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), "level=DEBUG msg=\"reconcile conflicted with a newer write; requeued\"")
}

// lockedBuffer is a bytes.Buffer safe for a logger on several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestPanicIsRecoveredAndRetried(t *testing.T) {
	req := Request{"ns", "a"}
	rec, clock, _ := fakeClockController(t, func(_ Request, n int) (Result, error) {
		if n == 1 {
			panic("bad object")
		}
		return Result{}, nil
	})
	eventually(t, wait, func() bool { return rec.count(req) == 1 && clock.Waiters() == 1 }, "panic scheduled a retry")
	clock.Step(time.Minute)
	eventually(t, wait, func() bool { return rec.count(req) == 2 }, "retried after the panic")
}

func TestRequeueAfterAndRequeue(t *testing.T) {
	req := Request{"ns", "a"}
	rec, clock, c := fakeClockController(t, func(_ Request, n int) (Result, error) {
		switch n {
		case 1:
			return Result{RequeueAfter: time.Hour}, nil
		case 2:
			return Result{Requeue: true}, nil
		}
		return Result{}, nil
	})
	eventually(t, wait, func() bool { return rec.count(req) == 1 && clock.Waiters() == 1 }, "RequeueAfter scheduled")
	clock.Step(59 * time.Minute)
	assert.Equal(t, 1, rec.count(req), "not before the hour")
	clock.Step(time.Minute)
	eventually(t, wait, func() bool { return rec.count(req) == 2 && clock.Waiters() == 1 }, "Requeue scheduled with backoff")
	clock.Step(time.Minute)
	eventually(t, wait, func() bool { return rec.count(req) == 3 }, "requeued")
	eventually(t, wait, func() bool {
		return counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultSuccess) == 1
	}, "done")
	assert.Equal(t, 1.0, counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultRequeueAfter))
	assert.Equal(t, 1.0, counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultRequeue))
	assert.Equal(t, 0.0, counter(t, c.Metrics(), "controller_reconcile_errors_total", "", ""))
}

func TestWorkersRunConcurrentlyButNeverOnOneKey(t *testing.T) {
	const workers = 3
	lw := newFakeLW()
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		lw.set(newCM("ns", n, nil))
	}
	inf := newInformer(t, lw)
	var (
		mu       sync.Mutex
		inFlight = map[Request]bool{}
		overlap  atomic.Bool
		peak     atomic.Int32
		cur      atomic.Int32
		release  = make(chan struct{})
	)
	r := ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		mu.Lock()
		if inFlight[req] {
			overlap.Store(true)
		}
		inFlight[req] = true
		mu.Unlock()
		n := cur.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		cur.Add(-1)
		mu.Lock()
		inFlight[req] = false
		mu.Unlock()
		return Result{}, nil
	})
	c := newController(t, r, Config{Workers: workers})
	WatchObjects(c, inf)
	runController(t, c)
	eventually(t, wait, func() bool { return peak.Load() == workers }, "all workers busy at once")
	for _, n := range []string{"a", "b", "c"} { // events for keys being reconciled
		lw.set(newCM("ns", n, nil))
	}
	close(release)
	eventually(t, wait, func() bool {
		return counter(t, c.Metrics(), "controller_reconcile_total", "result", ResultSuccess) >= 6
	}, "every key reconciled")
	assert.False(t, overlap.Load(), "one key was reconciled by two workers at once")
	assert.LessOrEqual(t, peak.Load(), int32(workers))
}

func TestRunTwiceAndRestart(t *testing.T) {
	inf := newInformer(t, newFakeLW(newCM("ns", "a", nil)))
	rec := newRecorder(nil)
	c := newController(t, rec, Config{})
	WatchObjects(c, inf)
	stop := runController(t, c)
	eventually(t, wait, func() bool { return rec.count(Request{"ns", "a"}) == 1 }, "first run reconciled")
	assert.ErrorIs(t, c.Run(context.Background()), ErrAlreadyRunning)
	require.NoError(t, stop())

	runController(t, c) // a second run starts again from the cache
	eventually(t, wait, func() bool { return rec.count(Request{"ns", "a"}) == 2 }, "second run reconciled")
}

func TestRunFailsWhenCachesDoNotSync(t *testing.T) {
	lw := newFakeLW()
	lw.listErr = errors.New("server down")
	inf := informer.New[*core.ConfigMap](lw, informer.Config[*core.ConfigMap]{Logger: quietLogger(),
		InitialBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = inf.Run(ctx) }()
	defer func() { cancel(); <-done }()

	c := newController(t, newRecorder(nil), Config{CacheSyncTimeout: 50 * time.Millisecond})
	WatchObjects(c, inf)
	assert.ErrorIs(t, c.Run(ctx), ErrCacheSyncTimeout)
}

func TestRunStopsDuringReconcile(t *testing.T) {
	inf := newInformer(t, newFakeLW(newCM("ns", "a", nil)))
	entered := make(chan struct{})
	var sawCancel atomic.Bool
	c := newController(t, ReconcilerFunc(func(ctx context.Context, _ Request) (Result, error) {
		close(entered)
		<-ctx.Done()
		sawCancel.Store(true)
		return Result{}, ctx.Err()
	}), Config{})
	WatchObjects(c, inf)
	stop := runController(t, c)
	<-entered
	require.NoError(t, stop())
	assert.True(t, sawCancel.Load(), "Run waited for the reconcile to see the cancellation")
}

// counter returns the value of the counter (or gauge) name in c whose
// label lname is lvalue (any series when lname is "").
func counter(t *testing.T, c prometheus.Collector, name, lname, lvalue string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if lname == "" || hasLabel(m, lname, lvalue) {
				switch {
				case m.Counter != nil:
					return m.Counter.GetValue()
				case m.Gauge != nil:
					return m.Gauge.GetValue()
				}
			}
		}
	}
	return 0
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}
