package replicaset

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/internal/testnode"
)

type nopHandler struct{}

func (nopHandler) OnAdd(*core.Pod, bool)         {}
func (nopHandler) OnUpdate(*core.Pod, *core.Pod) {}
func (nopHandler) OnDelete(any)                  {}

// TestNoDoubleCreatesOnStaleCache drives the reconciler over caches the
// test controls: while the pod cache has not caught up with the first
// reconcile's creations, further reconciles create nothing; once the
// informer delivers them (through the observing handler), the count is
// right and nothing more is created.
func TestNoDoubleCreatesOnStaleCache(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	five := int32(5)
	l := map[string]string{"app": "web"}
	rs, err := client.For[apps.ReplicaSet](c, "default").Create(ctx, &apps.ReplicaSet{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: apps.ReplicaSetSpec{Replicas: &five, Selector: &meta.LabelSelector{MatchLabels: l}, Template: core.PodTemplateSpec{
			ObjectMeta: meta.ObjectMeta{Labels: l}, Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "x"}}}}}})
	require.NoError(t, err)
	rsIx := informer.NewIndexer[*apps.ReplicaSet](informer.Indexers[*apps.ReplicaSet]{informer.NamespaceIndex: informer.IndexByNamespace[*apps.ReplicaSet]})
	_, _, err = rsIx.Put(rs)
	require.NoError(t, err)
	podIx := informer.NewIndexer[*core.Pod](informer.Indexers[*core.Pod]{informer.NamespaceIndex: informer.IndexByNamespace[*core.Pod]})
	require.NoError(t, controller.IndexByController(podIx))
	r := &Controller{client: c, kind: replicaSetKind(c, informer.NewLister(rsIx)), podIndex: podIx, exp: controller.NewExpectations(nil, 0),
		burst: DefaultBurst, log: testnode.QuietLogger(), now: time.Now}
	req := controller.Request{Namespace: "default", Name: "web"}
	listPods := func() []core.Pod {
		l, err := client.For[core.Pod](c, "default").List(ctx, client.ListOptions{})
		require.NoError(t, err)
		return l.Items
	}

	refreshRS := func() { // the ReplicaSet cache keeps up; the pod cache does not
		cur, err := client.For[apps.ReplicaSet](c, "default").Get(ctx, "web")
		require.NoError(t, err)
		_, _, err = rsIx.Put(cur)
		require.NoError(t, err)
	}
	for range 3 {
		_, err := r.Reconcile(ctx, req)
		require.NoError(t, err)
		refreshRS()
	}
	assert.Len(t, listPods(), 5, "stale cache: one round of creations")
	created, _ := r.Expectations().Pending(req)
	assert.Equal(t, 5, created)

	// The informer catches up.
	src := &captureSource{}
	controller.ObserveExpectations[*core.Pod](src, r.exp, r.ownerKey).AddEventHandler(nopHandler{})
	obs := src.h
	for _, p := range listPods() {
		_, _, err := podIx.Put(&p)
		require.NoError(t, err)
		obs.OnAdd(&p, false)
	}
	assert.True(t, r.Expectations().Satisfied(req))
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	assert.Len(t, listPods(), 5, "nothing more once the cache is right")
}

// captureSource is a Source that keeps the handler registered on it.
type captureSource struct{ h informer.Handler[*core.Pod] }

func (s *captureSource) AddEventHandler(h informer.Handler[*core.Pod], _ ...informer.HandlerOption) *informer.Registration {
	s.h = h
	return nil
}
