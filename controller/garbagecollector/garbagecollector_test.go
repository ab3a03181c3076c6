package garbagecollector

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

func ownerRef(obj meta.Object, block bool) meta.OwnerReference {
	tm, m := obj.GetTypeMeta(), obj.GetObjectMeta()
	return meta.OwnerReference{APIVersion: tm.APIVersion, Kind: tm.Kind, Name: m.Name, UID: m.UID, BlockOwnerDeletion: &block}
}

func newNamespace(t *testing.T, c *client.Client, name string) string {
	t.Helper()
	_, err := client.For[core.Namespace](c, "").Create(context.Background(), &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: name}})
	require.NoError(t, err)
	return name
}

func createCM(t *testing.T, c *client.Client, ns, name string, owners ...meta.OwnerReference) *core.ConfigMap {
	t.Helper()
	cm, err := client.For[core.ConfigMap](c, ns).Create(context.Background(),
		&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name, OwnerReferences: owners}})
	require.NoError(t, err)
	cm.APIVersion, cm.Kind = "v1", "ConfigMap"
	return cm
}

func cmGone(c *client.Client, ns, name string) func() bool {
	return func() bool {
		_, err := client.For[core.ConfigMap](c, ns).Get(context.Background(), name)
		return apierrors.IsNotFound(err)
	}
}

func deleteWith(t *testing.T, c *client.Client, ns, name string, p meta.DeletionPropagation) {
	t.Helper()
	require.NoError(t, client.For[core.ConfigMap](c, ns).Delete(context.Background(), name, &meta.DeleteOptions{PropagationPolicy: &p}))
}

// deletionOrder records the order in which configmaps of ns disappear.
func deletionOrder(t *testing.T, c *client.Client, ns string) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := client.For[core.ConfigMap](c, ns).Watch(ctx, client.ListOptions{})
	require.NoError(t, err)
	var mu sync.Mutex
	var order []string
	go func() {
		for ev := range ch {
			if ev.Type == meta.Deleted {
				mu.Lock()
				order = append(order, ev.Object.Name)
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), order...)
	}
}

func TestPropagationPolicies(t *testing.T) {
	c := startServer(t)
	runGC(t, c)
	ctx := context.Background()

	t.Run("background deletes the whole chain", func(t *testing.T) {
		ns := newNamespace(t, c, "background")
		root := createCM(t, c, ns, "root")
		child := createCM(t, c, ns, "child", ownerRef(root, false))
		createCM(t, c, ns, "grandchild", ownerRef(child, false))
		keep := createCM(t, c, ns, "unrelated")
		deleteWith(t, c, ns, "root", meta.DeletePropagationBackground)
		eventually(t, "child collected", cmGone(c, ns, "child"))
		eventually(t, "grandchild collected", cmGone(c, ns, "grandchild"))
		_, err := client.For[core.ConfigMap](c, ns).Get(ctx, keep.Name)
		require.NoError(t, err)
	})

	t.Run("foreground deletes dependents first", func(t *testing.T) {
		ns := newNamespace(t, c, "foreground")
		order := deletionOrder(t, c, ns)
		root := createCM(t, c, ns, "root")
		child := createCM(t, c, ns, "child", ownerRef(root, true))
		createCM(t, c, ns, "grandchild", ownerRef(child, true))
		deleteWith(t, c, ns, "root", meta.DeletePropagationForeground)
		eventually(t, "root deleted", cmGone(c, ns, "root"))
		eventually(t, "three deletions watched", func() bool { return len(order()) == 3 })
		assert.Equal(t, []string{"grandchild", "child", "root"}, order())
	})

	t.Run("foreground with a dependent that has another owner", func(t *testing.T) {
		ns := newNamespace(t, c, "foreground-shared")
		root := createCM(t, c, ns, "root")
		keeper := createCM(t, c, ns, "keeper")
		createCM(t, c, ns, "shared", ownerRef(root, true), ownerRef(keeper, false))
		deleteWith(t, c, ns, "root", meta.DeletePropagationForeground)
		eventually(t, "root deleted without its shared dependent", cmGone(c, ns, "root"))
		got, err := client.For[core.ConfigMap](c, ns).Get(ctx, "shared")
		require.NoError(t, err, "a dependent with a live owner stays")
		assert.Nil(t, got.DeletionTimestamp)
		// Dropped before the owner could finish (as Kubernetes' collector
		// does; the conformance spec checks it as soon as the owner is gone).
		require.Len(t, got.OwnerReferences, 1, "the reference to the deleted owner was dropped first")
		assert.Equal(t, keeper.UID, got.OwnerReferences[0].UID)
	})

	t.Run("orphan keeps dependents and strips references", func(t *testing.T) {
		ns := newNamespace(t, c, "orphan")
		root := createCM(t, c, ns, "root")
		other := createCM(t, c, ns, "other")
		createCM(t, c, ns, "child", ownerRef(root, true), ownerRef(other, false))
		deleteWith(t, c, ns, "root", meta.DeletePropagationOrphan)
		eventually(t, "root deleted", cmGone(c, ns, "root"))
		got, err := client.For[core.ConfigMap](c, ns).Get(ctx, "child")
		require.NoError(t, err)
		require.Len(t, got.OwnerReferences, 1)
		assert.Equal(t, other.UID, got.OwnerReferences[0].UID)
	})

	t.Run("dependent of an owner that never existed is collected", func(t *testing.T) {
		ns := newNamespace(t, c, "dangling")
		ghost := meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "no-such-uid"}
		createCM(t, c, ns, "orphaned", ghost)
		eventually(t, "dangling dependent collected", cmGone(c, ns, "orphaned"))
	})

	t.Run("a same-named owner with another UID does not count", func(t *testing.T) {
		ns := newNamespace(t, c, "reused-name")
		createCM(t, c, ns, "owner")
		stale := meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "old-uid"}
		createCM(t, c, ns, "dependent", stale)
		eventually(t, "dependent of the old owner collected", cmGone(c, ns, "dependent"))
	})

	t.Run("a dependent with a live owner keeps it and loses the dangling one", func(t *testing.T) {
		ns := newNamespace(t, c, "mixed")
		live := createCM(t, c, ns, "live")
		ghost := meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "ghost-uid"}
		createCM(t, c, ns, "dependent", ownerRef(live, false), ghost)
		eventually(t, "dangling reference dropped", func() bool {
			got, err := client.For[core.ConfigMap](c, ns).Get(ctx, "dependent")
			return err == nil && len(got.OwnerReferences) == 1 && got.OwnerReferences[0].UID == live.UID
		})
	})

	t.Run("an owner in another namespace counts as absent", func(t *testing.T) {
		ns := newNamespace(t, c, "cross-a")
		other := newNamespace(t, c, "cross-b")
		owner := createCM(t, c, other, "owner")
		createCM(t, c, ns, "dependent", ownerRef(owner, false))
		eventually(t, "cross-namespace dependent collected", cmGone(c, ns, "dependent"))
		_, err := client.For[core.ConfigMap](c, other).Get(ctx, "owner")
		require.NoError(t, err)
	})

	t.Run("an owner of an unknown kind keeps its dependent", func(t *testing.T) {
		ns := newNamespace(t, c, "unknown-kind")
		alien := meta.OwnerReference{APIVersion: "nowhere.example/v1", Kind: "Alien", Name: "x", UID: "alien-uid"}
		createCM(t, c, ns, "dependent", alien)
		live := createCM(t, c, ns, "probe", meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "g"})
		eventually(t, "the collector has acted on the probe", cmGone(c, ns, live.Name))
		_, err := client.For[core.ConfigMap](c, ns).Get(ctx, "dependent")
		require.NoError(t, err)
	})
}

// TestDeploymentChain deletes a Deployment → ReplicaSet → Pod chain (made
// by hand, as the workload controllers would) with each policy; a pod
// bound to a node stays Terminating until its node confirms, and a
// foreground deletion waits for it.
func TestDeploymentChain(t *testing.T) {
	c := startServer(t)
	runGC(t, c)
	ctx := context.Background()
	yes := true
	mk := func(t *testing.T, ns string) (*apps.Deployment, *apps.ReplicaSet, *core.Pod) {
		t.Helper()
		labels := map[string]string{"app": "web"}
		tmpl := core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labels},
			Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}
		d, err := client.For[apps.Deployment](c, ns).Create(ctx, &apps.Deployment{ObjectMeta: meta.ObjectMeta{Name: "web"},
			Spec: apps.DeploymentSpec{Selector: &meta.LabelSelector{MatchLabels: labels}, Template: tmpl}})
		require.NoError(t, err)
		d.APIVersion, d.Kind = "apps/v1", "Deployment"
		dref := ownerRef(d, true)
		dref.Controller = &yes
		rs, err := client.For[apps.ReplicaSet](c, ns).Create(ctx, &apps.ReplicaSet{
			ObjectMeta: meta.ObjectMeta{Name: "web-1", OwnerReferences: []meta.OwnerReference{dref}},
			Spec:       apps.ReplicaSetSpec{Selector: &meta.LabelSelector{MatchLabels: labels}, Template: tmpl}})
		require.NoError(t, err)
		rs.APIVersion, rs.Kind = "apps/v1", "ReplicaSet"
		rref := ownerRef(rs, true)
		rref.Controller = &yes
		pod, err := client.For[core.Pod](c, ns).Create(ctx, &core.Pod{
			ObjectMeta: meta.ObjectMeta{Name: "web-1-a", Labels: labels, OwnerReferences: []meta.OwnerReference{rref}},
			Spec:       core.PodSpec{NodeName: "node-1", Containers: tmpl.Spec.Containers}})
		require.NoError(t, err)
		return d, rs, pod
	}
	podGoneOrTerminating := func(ns string) func() bool {
		return func() bool {
			p, err := client.For[core.Pod](c, ns).Get(ctx, "web-1-a")
			return apierrors.IsNotFound(err) || (err == nil && p.DeletionTimestamp != nil)
		}
	}
	rsGone := func(ns string) func() bool {
		return func() bool {
			_, err := client.For[apps.ReplicaSet](c, ns).Get(ctx, "web-1")
			return apierrors.IsNotFound(err)
		}
	}
	deleteDeployment := func(t *testing.T, ns string, p meta.DeletionPropagation) {
		require.NoError(t, client.For[apps.Deployment](c, ns).Delete(ctx, "web", &meta.DeleteOptions{PropagationPolicy: &p}))
	}
	confirmPod := func(t *testing.T, ns string) {
		zero := int64(0)
		err := client.For[core.Pod](c, ns).Delete(ctx, "web-1-a", &meta.DeleteOptions{GracePeriodSeconds: &zero})
		if !apierrors.IsNotFound(err) {
			require.NoError(t, err)
		}
	}

	t.Run("background", func(t *testing.T) {
		ns := newNamespace(t, c, "deploy-background")
		mk(t, ns)
		deleteDeployment(t, ns, meta.DeletePropagationBackground)
		eventually(t, "replicaset collected", rsGone(ns))
		eventually(t, "pod deleted", podGoneOrTerminating(ns))
	})

	t.Run("foreground waits for the terminating pod", func(t *testing.T) {
		ns := newNamespace(t, c, "deploy-foreground")
		mk(t, ns)
		deleteDeployment(t, ns, meta.DeletePropagationForeground)
		eventually(t, "pod terminating", podGoneOrTerminating(ns))
		d, err := client.For[apps.Deployment](c, ns).Get(ctx, "web")
		require.NoError(t, err, "the deployment waits for its blocking dependents")
		assert.True(t, d.HasFinalizer(meta.FinalizerDeleteDependents))
		rs, err := client.For[apps.ReplicaSet](c, ns).Get(ctx, "web-1")
		require.NoError(t, err, "the replicaset waits for its terminating pod")
		assert.NotNil(t, rs.DeletionTimestamp)
		confirmPod(t, ns) // what the node agent does once the containers are gone
		eventually(t, "replicaset gone", rsGone(ns))
		eventually(t, "deployment gone", func() bool {
			_, err := client.For[apps.Deployment](c, ns).Get(ctx, "web")
			return apierrors.IsNotFound(err)
		})
	})

	t.Run("orphan", func(t *testing.T) {
		ns := newNamespace(t, c, "deploy-orphan")
		mk(t, ns)
		deleteDeployment(t, ns, meta.DeletePropagationOrphan)
		eventually(t, "deployment gone", func() bool {
			_, err := client.For[apps.Deployment](c, ns).Get(ctx, "web")
			return apierrors.IsNotFound(err)
		})
		rs, err := client.For[apps.ReplicaSet](c, ns).Get(ctx, "web-1")
		require.NoError(t, err)
		assert.Empty(t, rs.OwnerReferences)
		pod, err := client.For[core.Pod](c, ns).Get(ctx, "web-1-a")
		require.NoError(t, err)
		assert.Nil(t, pod.DeletionTimestamp)
		assert.Len(t, pod.OwnerReferences, 1, "the pod's owner, the replicaset, still exists")

		// Orphaning the replicaset's pods updates pods through the
		// dynamic client.
		p := meta.DeletePropagationOrphan
		require.NoError(t, client.For[apps.ReplicaSet](c, ns).Delete(ctx, "web-1", &meta.DeleteOptions{PropagationPolicy: &p}))
		eventually(t, "replicaset gone", rsGone(ns))
		pod, err = client.For[core.Pod](c, ns).Get(ctx, "web-1-a")
		require.NoError(t, err)
		assert.Empty(t, pod.OwnerReferences)
		assert.Nil(t, pod.DeletionTimestamp)
	})
}

// TestUserDefinedKind collects dependents of, and dependents that are,
// objects of a kind registered by the embedder (Widget).
func TestUserDefinedKind(t *testing.T) {
	c := startServer(t)
	gc := runGC(t, c)
	ctx := context.Background()
	eventually(t, "widgets followed", func() bool {
		for _, r := range gc.Resources() {
			if r == widgetGVR {
				return true
			}
		}
		return false
	})
	ns := newNamespace(t, c, "widgets")
	m, err := c.RESTMapper().ForGroupVersionResource(ctx, widgetGVR)
	require.NoError(t, err)
	widgets := client.DynamicFor(c, m, ns)
	newWidget := func(name string, owners ...meta.OwnerReference) *client.Unstructured {
		w := &client.Unstructured{TypeMeta: meta.TypeMeta{APIVersion: "example.orkit.dev/v1", Kind: "Widget"},
			ObjectMeta: meta.ObjectMeta{Name: name, OwnerReferences: owners}, Content: map[string]any{"spec": map[string]any{"size": 1.0}}}
		got, err := widgets.Create(ctx, w)
		require.NoError(t, err)
		got.APIVersion, got.Kind = "example.orkit.dev/v1", "Widget"
		return got
	}
	widgetGone := func(name string) func() bool {
		return func() bool { _, err := widgets.Get(ctx, name); return apierrors.IsNotFound(err) }
	}

	parent := newWidget("parent")
	newWidget("child-widget", ownerRef(parent, false))
	createCM(t, c, ns, "child-cm", ownerRef(parent, false))
	require.NoError(t, widgets.Delete(ctx, "parent", nil))
	eventually(t, "widget dependent collected", widgetGone("child-widget"))
	eventually(t, "configmap dependent collected", cmGone(c, ns, "child-cm"))

	owner := createCM(t, c, ns, "owner-cm")
	newWidget("owned-widget", ownerRef(owner, true))
	deleteWith(t, c, ns, "owner-cm", meta.DeletePropagationForeground)
	eventually(t, "widget owned by a configmap collected", widgetGone("owned-widget"))
	eventually(t, "owner gone after its dependents", cmGone(c, ns, "owner-cm"))
}

func TestNewRequiresManager(t *testing.T) {
	_, err := New(nil, Config{})
	require.ErrorIs(t, err, ErrInvalidConfig)
}

// TestWaitsForAPIServer: with no server to discover, Run keeps trying
// and returns nil when stopped (a manager is not brought down by it).
func TestWaitsForAPIServer(t *testing.T) {
	c, err := client.New(&client.Config{Host: "https://127.0.0.1:1", Insecure: true}, client.WithLogger(quietLogger()),
		client.WithRetry(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	gc, err := New(managerFor(t, c), Config{Logger: quietLogger(), DiscoveryPeriod: 50 * time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	require.NoError(t, gc.Run(ctx))
	require.ErrorIs(t, gc.Run(ctx), ErrAlreadyRunning)
}

func TestMetrics(t *testing.T) {
	c := startServer(t)
	gc := runGC(t, c)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(gc.Metrics()))
	ns := newNamespace(t, c, "metrics")
	root := createCM(t, c, ns, "root")
	createCM(t, c, ns, "child", ownerRef(root, true))
	deleteWith(t, c, ns, "root", meta.DeletePropagationForeground)
	eventually(t, "root gone", cmGone(c, ns, "root"))
	eventually(t, "metrics counted", func() bool {
		v := gathered(t, reg)
		return v["garbagecollector_foreground_deletions_total"] == 1 && v["garbagecollector_deletions_total"] == 1 &&
			v["garbagecollector_graph_objects"] > 0 && v["garbagecollector_resources"] > 10
	})
	mfs, err := reg.Gather()
	require.NoError(t, err)
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	require.NoError(t, err)
	assert.Empty(t, problems)
}

// gathered sums each metric family's counter and gauge values.
func gathered(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			out[mf.GetName()] += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return out
}

// TestOwnerOfUnfollowedResource: an owner whose resource the collector
// does not follow is found by a live GET and checked again every
// DiscoveryPeriod, so its dependents are still collected when it goes.
func TestOwnerOfUnfollowedResource(t *testing.T) {
	c := startServer(t)
	gc, err := New(managerFor(t, c), Config{Logger: quietLogger(), DiscoveryPeriod: 200 * time.Millisecond,
		Ignored: []meta.GroupResource{{Group: widgetGVR.Group, Resource: widgetGVR.Resource}}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gc.Run(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })

	ns := newNamespace(t, c, "unfollowed")
	m, err := c.RESTMapper().ForGroupVersionResource(ctx, widgetGVR)
	require.NoError(t, err)
	widgets := client.DynamicFor(c, m, ns)
	w, err := widgets.Create(ctx, &client.Unstructured{TypeMeta: meta.TypeMeta{APIVersion: "example.orkit.dev/v1", Kind: "Widget"},
		ObjectMeta: meta.ObjectMeta{Name: "owner"}})
	require.NoError(t, err)
	w.APIVersion, w.Kind = "example.orkit.dev/v1", "Widget"
	createCM(t, c, ns, "dependent", ownerRef(w, false))
	eventually(t, "collector running", func() bool { return gc.GraphSize() > 0 })
	_, err = client.For[core.ConfigMap](c, ns).Get(ctx, "dependent")
	require.NoError(t, err, "kept while its owner exists")
	require.NoError(t, widgets.Delete(ctx, "owner", nil))
	eventually(t, "dependent of an unfollowed owner collected", cmGone(c, ns, "dependent"))
	for _, r := range gc.Resources() {
		assert.NotEqual(t, widgetGVR, r, "widgets are not followed")
	}
}

// TestOwnershipCircle follows the conformance spec "Garbage collector
// should not be blocked by dependency circle": three objects each owned
// (controller, blockOwnerDeletion) by the next, one deleted. Every policy
// but Orphan takes all three; in the foreground the collector unblocks
// the owner references of the one whose dependent also waits (as
// Kubernetes' does), or the three would wait on each other for ever.
func TestOwnershipCircle(t *testing.T) {
	c := startServer(t)
	runGC(t, c)
	ctx := context.Background()
	for _, p := range []meta.DeletionPropagation{meta.DeletePropagationForeground, meta.DeletePropagationBackground} {
		t.Run(string(p), func(t *testing.T) {
			ns := newNamespace(t, c, "circle-"+strings.ToLower(string(p)))
			cms := client.For[core.ConfigMap](c, ns)
			objs := []*core.ConfigMap{createCM(t, c, ns, "cm1"), createCM(t, c, ns, "cm2"), createCM(t, c, ns, "cm3")}
			// cm1 is owned by cm3, cm2 by cm1, cm3 by cm2.
			for i, o := range objs {
				owner := objs[(i+2)%3]
				ref := ownerRef(owner, true)
				controller := true
				ref.Controller = &controller
				cur, err := cms.Get(ctx, o.Name)
				require.NoError(t, err)
				cur.OwnerReferences = []meta.OwnerReference{ref}
				_, err = cms.Update(ctx, cur)
				require.NoError(t, err)
			}
			uid := objs[0].UID
			require.NoError(t, cms.Delete(ctx, "cm1", &meta.DeleteOptions{PropagationPolicy: &p, Preconditions: &meta.Preconditions{UID: &uid}}))
			for _, o := range objs {
				eventually(t, o.Name+" deleted", cmGone(c, ns, o.Name))
			}
		})
	}
}
