package disruption_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/disruption"
	"github.com/orkit/orkit/internal/testnode"
)

// setupBare runs only the disruption controller and a binding test node,
// so the test places the pods and their owners itself.
func setupBare(t *testing.T) *client.Client {
	t.Helper()
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 1, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	pc, err := disruption.New(m, disruption.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(pc))
	testnode.RunManager(t, m)
	return admin
}

func ownedPod(name string, owner meta.OwnerReference) *core.Pod {
	yes := true
	owner.Controller = &yes
	return &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "db"},
			OwnerReferences: []meta.OwnerReference{owner}},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "db", Image: "orkit.local/hello:v1"}}},
	}
}

// TestStatefulSetScaleAndSyncFailure checks the expected pods of a
// StatefulSet's budget (its replicas, not its pod count), that a scale
// change reaches the budget, and the SyncFailed fail-safe for a pod whose
// controller has no known scale.
func TestStatefulSetScaleAndSyncFailure(t *testing.T) {
	c := setupBare(t)
	ctx := context.Background()
	three := int32(3)
	labels := map[string]string{"app": "db"}
	sts, err := client.For[apps.StatefulSet](c, "default").Create(ctx, &apps.StatefulSet{
		ObjectMeta: meta.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: apps.StatefulSetSpec{Replicas: &three, ServiceName: "db", Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labels},
				Spec: core.PodSpec{Containers: []core.Container{{Name: "db", Image: "orkit.local/hello:v1"}}}}},
	})
	require.NoError(t, err)
	ref := meta.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: sts.UID}
	for _, name := range []string{"db-0", "db-1"} {
		_, err := client.For[core.Pod](c, "default").Create(ctx, ownedPod(name, ref))
		require.NoError(t, err)
	}
	one := meta.FromInt(1)
	_, err = client.For[policy.PodDisruptionBudget](c, "default").Create(ctx, &policy.PodDisruptionBudget{
		ObjectMeta: meta.ObjectMeta{Name: "db", Namespace: "default"},
		Spec:       policy.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &meta.LabelSelector{MatchLabels: labels}},
	})
	require.NoError(t, err)
	get := func() *policy.PodDisruptionBudget {
		p, err := client.For[policy.PodDisruptionBudget](c, "default").Get(ctx, "db")
		require.NoError(t, err)
		return p
	}
	counts := func(p *policy.PodDisruptionBudget) [4]int32 {
		return [4]int32{p.Status.ExpectedPods, p.Status.DesiredHealthy, p.Status.CurrentHealthy, p.Status.DisruptionsAllowed}
	}
	testnode.Eventually(t, 30*time.Second, func() bool { return counts(get()) == [4]int32{3, 2, 2, 0} },
		"3 expected (the replicas), 2 desired, 2 healthy, none allowed: %v", counts(get()))

	sts, err = client.For[apps.StatefulSet](c, "default").Get(ctx, "db")
	require.NoError(t, err)
	two := int32(2)
	sts.Spec.Replicas = &two
	_, err = client.For[apps.StatefulSet](c, "default").Update(ctx, sts)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool { return counts(get()) == [4]int32{2, 1, 2, 1} },
		"scaled to 2: one disruption allowed: %v", counts(get()))

	_, err = client.For[core.Pod](c, "default").Create(ctx, ownedPod("stray", meta.OwnerReference{
		APIVersion: "batch/v1", Kind: "Job", Name: "stray", UID: "0b1c"}))
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		c := policy.FindCondition(get().Status.Conditions, policy.DisruptionAllowedCondition)
		return c != nil && c.Reason == policy.SyncFailedReason
	}, "SyncFailed for a pod whose controller has no scale")
	p := get()
	assert.Equal(t, int32(0), p.Status.DisruptionsAllowed)
	c0 := policy.FindCondition(p.Status.Conditions, policy.DisruptionAllowedCondition)
	assert.Equal(t, meta.ConditionFalse, c0.Status)
	assert.Equal(t, `found no controllers for pod "stray"`, c0.Message)

	require.NoError(t, client.For[core.Pod](c, "default").Delete(ctx, "stray", &meta.DeleteOptions{GracePeriodSeconds: new(int64)}))
	testnode.Eventually(t, 30*time.Second, func() bool {
		p := get()
		c := policy.FindCondition(p.Status.Conditions, policy.DisruptionAllowedCondition)
		return c != nil && c.Reason == policy.SufficientPodsReason && p.Status.DisruptionsAllowed == 1
	}, "recovered once the stray pod is gone")
}
