package replicaset_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/internal/testnode"
)

const wait = 30 * time.Second

func newRS(name string, replicas int32) *apps.ReplicaSet {
	l := map[string]string{"app": name}
	return &apps.ReplicaSet{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: apps.ReplicaSetSpec{Replicas: &replicas, Selector: &meta.LabelSelector{MatchLabels: l},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: l},
				Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}}}
}

func setup(t *testing.T) (*client.Client, *testnode.Agent, *replicaset.Controller) {
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	agent := testnode.RunAgent(t, admin, testnode.Config{Nodes: 3, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	r, err := replicaset.New(m, replicaset.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(r))
	testnode.RunManager(t, m)
	return admin, agent, r
}

func ownedPods(t *testing.T, c *client.Client, rs *apps.ReplicaSet) []core.Pod {
	l, err := client.For[core.Pod](c, rs.Namespace).List(context.Background(), client.ListOptions{})
	require.NoError(t, err)
	var out []core.Pod
	for _, p := range l.Items {
		if ref := meta.ControllerOf(&p.ObjectMeta); ref != nil && ref.UID == rs.UID && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

func TestReplicaSetLifecycle(t *testing.T) {
	c, agent, r := setup(t)
	ctx := context.Background()
	rsc := client.For[apps.ReplicaSet](c, "default")
	pods := client.For[core.Pod](c, "default")

	// An orphan that matches is adopted; one that does not is left alone.
	orphan := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "orphan", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}
	_, err := pods.Create(ctx, orphan)
	require.NoError(t, err)
	rs, err := rsc.Create(ctx, newRS("web", 3))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		got, err := rsc.Get(ctx, "web")
		return err == nil && got.Status.AvailableReplicas == 3 && got.Status.ReadyReplicas == 3 &&
			got.Status.Replicas == 3 && got.Status.FullyLabeledReplicas == 3 && got.Status.ObservedGeneration == got.Generation
	}, "3 available replicas")
	owned := ownedPods(t, c, rs)
	require.Len(t, owned, 3)
	names := map[string]bool{}
	for _, p := range owned {
		names[p.Name] = true
		ref := meta.ControllerOf(&p.ObjectMeta)
		require.NotNil(t, ref)
		assert.Equal(t, "ReplicaSet", ref.Kind)
		assert.Equal(t, "apps/v1", ref.APIVersion)
		require.NotNil(t, ref.BlockOwnerDeletion)
		assert.True(t, *ref.BlockOwnerDeletion)
	}
	assert.True(t, names["orphan"], "the matching orphan was adopted: %v", names)

	// Relabelled pods are released and replaced.
	p, err := pods.Get(ctx, "orphan")
	require.NoError(t, err)
	_, err = pods.Patch(ctx, p.Name, client.MergePatchType, []byte(`{"metadata":{"labels":{"app":"other"}}}`))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		p, err := pods.Get(ctx, "orphan")
		return err == nil && meta.ControllerOf(&p.ObjectMeta) == nil && len(ownedPods(t, c, rs)) == 3
	}, "orphan released and replaced")
	testnode.Eventually(t, wait, func() bool {
		owned := ownedPods(t, c, rs)
		for i := range owned {
			if !core.IsPodReady(&owned[i]) {
				return false
			}
		}
		got, err := rsc.Get(ctx, "web")
		return err == nil && got.Status.ReadyReplicas == 3 && len(owned) == 3
	}, "the replacement is ready")

	// Scale down deletes the not-ready pod first.
	owned = ownedPods(t, c, rs)
	sick := owned[0].Name
	agent.SetFate(func(p *core.Pod) testnode.Fate {
		if p.Name == sick {
			return testnode.NotReady
		}
		return testnode.Ready
	})
	testnode.Eventually(t, wait, func() bool {
		got, err := rsc.Get(ctx, "web")
		return err == nil && got.Status.ReadyReplicas == 2
	}, "one pod not ready")
	_, err = rsc.Patch(ctx, "web", client.MergePatchType, []byte(`{"spec":{"replicas":2}}`))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		got, err := rsc.Get(ctx, "web")
		return err == nil && got.Status.Replicas == 2 && got.Status.ReadyReplicas == 2
	}, "scaled to 2")
	for _, p := range ownedPods(t, c, rs) {
		assert.NotEqual(t, sick, p.Name, "the not-ready pod went first")
	}

	// Scale through the scale subresource, as kubectl scale does.
	sc, err := rsc.Scale(ctx, "web")
	require.NoError(t, err)
	sc.Spec.Replicas = 20
	_, err = rsc.UpdateScale(ctx, "web", sc)
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		got, err := rsc.Get(ctx, "web")
		return err == nil && got.Status.AvailableReplicas == 20
	}, "scaled to 20")
	assert.Len(t, ownedPods(t, c, rs), 20, "no double creates")
	c0, d0 := r.Expectations().Pending(controller.Request{Namespace: "default", Name: "web"})
	assert.Zero(t, c0+d0)
}

// TestReplicaFailureCondition: creations the API server refuses (a pod
// quota) surface as the ReplicaFailure condition, and it clears once the
// quota allows the pods.
func TestReplicaFailureCondition(t *testing.T) {
	c, _, _ := setup(t)
	ctx := context.Background()
	quotas := client.For[core.ResourceQuota](c, "default")
	_, err := quotas.Create(ctx, &core.ResourceQuota{ObjectMeta: meta.ObjectMeta{Name: "pods", Namespace: "default"},
		Spec: core.ResourceQuotaSpec{Hard: core.ResourceList{core.ResourcePods: resource.MustParse("2")}}})
	require.NoError(t, err)
	rsc := client.For[apps.ReplicaSet](c, "default")
	_, err = rsc.Create(ctx, newRS("capped", 3))
	require.NoError(t, err)
	failure := func() *apps.ReplicaSetCondition {
		got, err := rsc.Get(ctx, "capped")
		require.NoError(t, err)
		for i := range got.Status.Conditions {
			if got.Status.Conditions[i].Type == apps.ReplicaSetReplicaFailure {
				return &got.Status.Conditions[i]
			}
		}
		return nil
	}
	testnode.Eventually(t, wait, func() bool {
		got, err := rsc.Get(ctx, "capped")
		return err == nil && got.Status.Replicas == 2 && failure() != nil
	}, "ReplicaFailure set with 2 replicas")
	c0 := failure()
	assert.Equal(t, "FailedCreate", c0.Reason)
	assert.Contains(t, c0.Message, "quota")
	// Events are written asynchronously: poll for them.
	hasEvent := func(typ, reason, msg string) func() bool {
		return func() bool {
			evs, err := client.For[core.Event](c, "default").List(ctx, client.ListOptions{FieldSelector: "involvedObject.name=capped"})
			require.NoError(t, err)
			for _, ev := range evs.Items {
				if ev.Reason == reason && ev.Type == typ && ev.InvolvedObject.Kind == "ReplicaSet" && strings.Contains(ev.Message, msg) &&
					ev.Source.Component == replicaset.Component {
					return true
				}
			}
			return false
		}
	}
	testnode.Eventually(t, wait, hasEvent(core.EventTypeWarning, replicaset.ReasonFailedCreate, "Error creating: "), "a FailedCreate warning event")
	testnode.Eventually(t, wait, hasEvent(core.EventTypeNormal, replicaset.ReasonSuccessfulCreate, "Created pod: capped-"), "SuccessfulCreate events")

	require.NoError(t, quotas.Delete(ctx, "pods", nil))
	testnode.Eventually(t, wait, func() bool {
		got, err := rsc.Get(ctx, "capped")
		return err == nil && got.Status.Replicas == 3 && failure() == nil
	}, "all 3 created and the condition cleared")
}

// TestOverlappingSelectors: two ReplicaSets selecting the same labels do
// not fight over pods: each counts only the pods it controls.
func TestOverlappingSelectors(t *testing.T) {
	c, _, _ := setup(t)
	ctx := context.Background()
	rsc := client.For[apps.ReplicaSet](c, "default")
	a, err := rsc.Create(ctx, newRS("web", 3))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool { return len(ownedPods(t, c, a)) == 3 }, "a has 3")
	bRS := newRS("web", 2)
	bRS.Name = "web-b"
	b, err := rsc.Create(ctx, bRS)
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		got, err := rsc.Get(ctx, "web-b")
		return err == nil && got.Status.AvailableReplicas == 2
	}, "b has 2 of its own")
	assert.Len(t, ownedPods(t, c, a), 3)
	assert.Len(t, ownedPods(t, c, b), 2)
	l, err := client.For[core.Pod](c, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	assert.Len(t, l.Items, 5)
}
