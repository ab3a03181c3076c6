package testnode_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
)

func testPod(name string) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name}},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}
}

func TestNewRejectsBadOptions(t *testing.T) {
	_, err := testnode.New(nil, testnode.Config{})
	assert.ErrorIs(t, err, testnode.ErrInvalidConfig)
}

func TestAgentLifecycle(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	a := testnode.RunAgent(t, c, testnode.Config{Nodes: 2, Bind: true, ReadyDelay: 50 * time.Millisecond})
	assert.Equal(t, []string{"test-node-0", "test-node-1"}, a.NodeNames())

	nodes, err := client.For[core.Node](c, "").List(ctx, client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes.Items, 2)
	for _, n := range nodes.Items {
		_, cond := readyCondition(&n)
		require.NotNil(t, cond, n.Name)
		assert.Equal(t, meta.ConditionTrue, cond.Status)
		assert.Contains(t, n.Status.Capacity, core.ResourcePods)
	}

	pods := client.For[core.Pod](c, "default")
	a.SetFate(func(p *core.Pod) testnode.Fate {
		if p.Name == "held" {
			return testnode.Pending
		}
		if p.Name == "sick" {
			return testnode.NotReady
		}
		return testnode.Ready
	})
	for _, n := range []string{"web", "held", "sick"} {
		_, err := pods.Create(ctx, testPod(n))
		require.NoError(t, err)
	}
	get := func(n string) *core.Pod {
		p, err := pods.Get(ctx, n)
		require.NoError(t, err)
		return p
	}
	testnode.Eventually(t, 20*time.Second, func() bool { return core.IsPodReady(get("web")) }, "web ready")
	web := get("web")
	assert.Equal(t, core.PodRunning, web.Status.Phase)
	assert.NotEmpty(t, web.Status.PodIP)
	assert.NotNil(t, web.Status.StartTime)
	require.Len(t, web.Status.ContainerStatuses, 1)
	assert.True(t, web.Status.ContainerStatuses[0].Ready)
	assert.Contains(t, a.NodeNames(), web.Spec.NodeName)

	testnode.Eventually(t, 20*time.Second, func() bool { return get("sick").Status.Phase == core.PodRunning }, "sick running")
	assert.False(t, core.IsPodReady(get("sick")))
	testnode.Eventually(t, 20*time.Second, func() bool { return get("held").Spec.NodeName != "" }, "held bound")
	assert.Equal(t, core.PodPending, get("held").Status.Phase)

	a.SetFate(nil) // everything ready now
	testnode.Eventually(t, 20*time.Second, func() bool { return core.IsPodReady(get("held")) && core.IsPodReady(get("sick")) },
		"held and sick ready after SetFate(nil)")
	assert.NotEqual(t, get("held").Status.PodIP, get("sick").Status.PodIP)

	// A graceful delete is confirmed.
	require.NoError(t, pods.Delete(ctx, "web", nil))
	testnode.Eventually(t, 20*time.Second, func() bool {
		_, err := pods.Get(ctx, "web")
		return apierrors.IsNotFound(err)
	}, "web gone")
}

func readyCondition(n *core.Node) (int, *core.NodeCondition) {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == core.NodeReady {
			return i, &n.Status.Conditions[i]
		}
	}
	return -1, nil
}

func TestAddRemoveNode(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	a := testnode.RunAgent(t, c, testnode.Config{Nodes: 1})
	require.NoError(t, a.AddNode(ctx, "extra"))
	assert.Equal(t, []string{"test-node-0", "extra"}, a.NodeNames())
	n, err := client.For[core.Node](c, "").Get(ctx, "extra")
	require.NoError(t, err)
	_, cond := readyCondition(n)
	require.NotNil(t, cond)
	assert.Equal(t, meta.ConditionTrue, cond.Status)

	pods := client.For[core.Pod](c, "default")
	p := testPod("on-extra")
	p.Spec.NodeName = "extra"
	_, err = pods.Create(ctx, p)
	require.NoError(t, err)
	testnode.Eventually(t, 20*time.Second, func() bool {
		got, err := pods.Get(ctx, "on-extra")
		return err == nil && core.IsPodReady(got)
	}, "pod on the added node ready")

	require.NoError(t, a.RemoveNode(ctx, "extra", true))
	assert.Equal(t, []string{"test-node-0"}, a.NodeNames())
	_, err = client.For[core.Node](c, "").Get(ctx, "extra")
	assert.True(t, apierrors.IsNotFound(err))
	// Its pods are no longer served: a graceful delete stays pending.
	require.NoError(t, pods.Delete(ctx, "on-extra", nil))
	got, err := pods.Get(ctx, "on-extra")
	require.NoError(t, err)
	assert.NotNil(t, got.DeletionTimestamp)
}
