package informer

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// runInformer starts inf.Run on a goroutine owned by the test and waits
// for its cache to sync.
func runInformer(t *testing.T, inf *Informer[*core.ConfigMap]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, inf.Run(ctx))
	}()
	stop = func() { cancel(); wg.Wait() }
	t.Cleanup(stop)
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	defer scancel()
	require.True(t, WaitForCacheSync(sctx, inf.HasSynced), "cache sync")
	return stop
}

func fastOptions() Config[*core.ConfigMap] {
	return Config[*core.ConfigMap]{Name: "configmaps", Logger: quietLogger(),
		InitialBackoff: 5 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, PageSize: 7}
}

func TestInformerSyncsAndSeesChanges(t *testing.T) {
	s := startServer(t, 100)
	for i := range 20 { // more than a page of 7
		s.mustCreate(t, "default", fmt.Sprintf("cm-%02d", i), "v0")
	}
	inf := New[*core.ConfigMap](s.lw("default"), fastOptions())
	rec := newRecorder[*core.ConfigMap]()
	reg := inf.AddEventHandler(rec)
	runInformer(t, inf)
	waitFor(t, 10*time.Second, reg.HasSynced, "handler synced")
	assert.Equal(t, 20, inf.Indexer().Len())
	assert.Equal(t, 20, rec.initialAdds)

	ctx := context.Background()
	_, err := s.update(ctx, newCM("default", "cm-00", "v1"))
	require.NoError(t, err)
	_, err = s.remove(ctx, "default", "cm-01")
	require.NoError(t, err)
	s.mustCreate(t, "default", "cm-new", "v0")
	want, _ := s.freshList(t, "default")
	waitFor(t, 10*time.Second, func() bool { return assert.ObjectsAreEqual(want, rec.snapshot()) }, "handler view equals server")
	assert.Equal(t, want, cacheView(inf))
	adds, updates, deletes, tombs := rec.counts()
	assert.Equal(t, []int{21, 1, 1, 0}, []int{adds, updates, deletes, tombs})

	cm, err := inf.Lister().Namespace("default").Get("cm-00")
	require.NoError(t, err)
	assert.Equal(t, "v1", cm.Data["v"])
	_, err = inf.Lister().Get("default", "cm-01")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Len(t, inf.Lister().List(labels.SelectorFromSet(labels.Set{"app": "churn"})), 20)
}

func TestInformerResumesAfterCutConnection(t *testing.T) {
	s := startServer(t, 1000)
	s.mustCreate(t, "default", "a", "v0")
	inf := New[*core.ConfigMap](s.lw("default"), fastOptions())
	rec := newRecorder[*core.ConfigMap]()
	inf.AddEventHandler(rec)
	runInformer(t, inf)
	for i := range 5 {
		s.cut.CutAll()
		s.mustCreate(t, "default", fmt.Sprintf("b%d", i), "v0")
	}
	want, _ := s.freshList(t, "default")
	waitFor(t, 10*time.Second, func() bool { return assert.ObjectsAreEqual(want, cacheView(inf)) }, "cache caught up")
	waitFor(t, 10*time.Second, func() bool { return assert.ObjectsAreEqual(want, rec.snapshot()) }, "handler caught up")
	st := inf.Stats()
	assert.Equal(t, int64(1), st.Lists, "resumed without relisting: %+v", st)
	assert.Greater(t, st.Watches, int64(1))
	assert.Zero(t, rec.duplicateAdds)
}

func TestInformerRelistsOnGoneAndDeliversDiff(t *testing.T) {
	s := startServer(t, 5)
	for _, n := range []string{"keep", "change", "gone"} {
		s.mustCreate(t, "default", n, "v0")
	}
	inf := New[*core.ConfigMap](s.lw("default"), fastOptions())
	rec := newRecorder[*core.ConfigMap]()
	inf.AddEventHandler(rec)
	runInformer(t, inf)

	s.cut.Block(true)
	s.cut.CutAll()
	ctx := context.Background()
	_, err := s.update(ctx, newCM("default", "change", "v1"))
	require.NoError(t, err)
	_, err = s.remove(ctx, "default", "gone")
	require.NoError(t, err)
	s.mustCreate(t, "default", "new", "v0")
	for i := range 20 { // push the informer's resourceVersion out of the server's history
		_, err := s.update(ctx, newCM("default", "new", fmt.Sprint(i)))
		require.NoError(t, err)
	}
	s.cut.Block(false)

	want, _ := s.freshList(t, "default")
	waitFor(t, 15*time.Second, func() bool { return assert.ObjectsAreEqual(want, rec.snapshot()) }, "handler saw the diff")
	assert.Equal(t, want, cacheView(inf))
	st := inf.Stats()
	assert.GreaterOrEqual(t, st.GoneErrors, int64(1), "%+v", st)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// The list is in key order: updates and adds as met, tombstones last.
	assert.Equal(t, []string{"add default/change", "add default/gone", "add default/keep",
		"update default/change", "add default/new", "tombstone default/gone"}, rec.events)
	assert.Zero(t, rec.duplicateAdds, "no duplicate adds")
	assert.Zero(t, rec.sameRVUpdates, "no updates of unchanged objects")
	assert.Equal(t, 3, rec.initialAdds)
}

func TestInformerScopeAndFactory(t *testing.T) {
	s := startServer(t, 100)
	mk := func(name, app string) *core.ConfigMap {
		cm := newCM("default", name, "v")
		cm.Labels = map[string]string{"app": app}
		return cm
	}
	ctx := context.Background()
	for _, cm := range []*core.ConfigMap{mk("x1", "x"), mk("y1", "y"), mk("x2", "x")} {
		_, err := s.create(ctx, cm)
		require.NoError(t, err)
	}
	f := NewFactory()
	defer f.Shutdown()
	scope := Scope{Namespace: "default", LabelSelector: "app=x", FieldSelector: "metadata.name!=x2"}
	inf, err := ForResource[core.ConfigMap](f, s.informerClient, scope, fastOptions())
	require.NoError(t, err)
	again, err := ForResource[core.ConfigMap](f, s.informerClient, scope, fastOptions())
	require.NoError(t, err)
	assert.Same(t, inf, again)
	rec := newRecorder[*core.ConfigMap]()
	inf.AddEventHandler(rec)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.Start(fctx)
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	for _, ok := range f.WaitForCacheSync(wctx) {
		require.True(t, ok)
	}
	assert.Equal(t, []string{"default/x1"}, inf.Indexer().ListKeys())

	_, err = s.update(ctx, mk("x1", "y")) // leaves the scope
	require.NoError(t, err)
	_, err = s.update(ctx, mk("y1", "x")) // enters it
	require.NoError(t, err)
	waitFor(t, 10*time.Second, func() bool { return len(rec.snapshot()) == 1 && rec.snapshot()["default/y1"] != "" }, "scope followed")
	assert.Equal(t, []string{"default/y1"}, inf.Indexer().ListKeys())
	assert.True(t, f.Stop(ResourceName(meta.GroupVersionResource{Version: "v1", Resource: "configmaps"}, scope)))
	assert.Zero(t, inf.Indexer().Len())
}
