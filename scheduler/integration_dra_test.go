package scheduler_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/dra"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/plugins"
)

func gpuClaim(name string) *dra.ResourceClaim {
	return &dra.ResourceClaim{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: dra.ResourceClaimSpec{Devices: dra.DeviceClaim{Requests: []dra.DeviceRequest{
			{Name: "gpu", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}}}}}}
}

func podWithResourceClaim(name, claim string) *core.Pod {
	p := simcluster.Pod(name, "", "")
	p.Spec.ResourceClaims = []meta.RawJSON{meta.RawJSON(`{"name":"gpu","resourceClaimName":"` + claim + `"}`)}
	return p
}

// TestDynamicResourcesScheduling: a pod whose claim asks for a GPU is
// bound to the only node whose ResourceSlice has one, with the claim
// allocated there (finalizer, node selector, device) and reserved for the
// pod, all through the scheduler's own RBAC; a second pod asking for
// another GPU stays Pending with kube's reason.
func TestDynamicResourcesScheduling(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	for _, n := range []string{"n1", "n2"} {
		_, err := client.For[core.Node](c.Admin, "").Create(ctx, simcluster.Node(n, "z", "4", "8Gi"))
		require.NoError(t, err)
	}
	_, err := client.For[dra.DeviceClass](c.Admin, "").Create(ctx, &dra.DeviceClass{ObjectMeta: meta.ObjectMeta{Name: "gpu.example.com"},
		Spec: dra.DeviceClassSpec{Selectors: []dra.DeviceSelector{{CEL: &dra.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}}})
	require.NoError(t, err)
	node := "n2"
	_, err = client.For[dra.ResourceSlice](c.Admin, "").Create(ctx, &dra.ResourceSlice{ObjectMeta: meta.ObjectMeta{Name: "n2-gpus"},
		Spec: dra.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &node, Pool: dra.ResourcePool{Name: "n2", Generation: 1, ResourceSliceCount: 1},
			Devices: []dra.Device{{Name: "gpu-0"}}}})
	require.NoError(t, err)
	claims := client.For[dra.ResourceClaim](c.Admin, "default")
	pods := client.For[core.Pod](c.Admin, "default")
	for _, name := range []string{"first", "second"} {
		_, err = claims.Create(ctx, gpuClaim(name))
		require.NoError(t, err)
	}
	startScheduler(t, c, scheduler.Config{DynamicResources: true, DisablePreemption: true})

	p, err := pods.Create(ctx, podWithResourceClaim("trainer", "first"))
	require.NoError(t, err)
	testnode.Eventually(t, 20*time.Second, func() bool {
		p, err := pods.Get(ctx, "trainer")
		require.NoError(t, err)
		return p.Spec.NodeName != ""
	}, "pod bound")
	bound, err := pods.Get(ctx, "trainer")
	require.NoError(t, err)
	assert.Equal(t, "n2", bound.Spec.NodeName)
	claim, err := claims.Get(ctx, "first")
	require.NoError(t, err)
	require.NotNil(t, claim.Status.Allocation)
	assert.Equal(t, "gpu-0", claim.Status.Allocation.Devices.Results[0].Device)
	assert.NotNil(t, claim.Status.Allocation.AllocationTimestamp)
	assert.True(t, slices.Contains(claim.Finalizers, "resource.kubernetes.io/delete-protection"))
	require.Len(t, claim.Status.ReservedFor, 1)
	assert.Equal(t, p.UID, claim.Status.ReservedFor[0].UID)

	_, err = pods.Create(ctx, podWithResourceClaim("waiter", "second"))
	require.NoError(t, err)
	testnode.Eventually(t, 20*time.Second, func() bool {
		p, err := pods.Get(ctx, "waiter")
		require.NoError(t, err)
		_, cond := core.GetPodCondition(&p.Status, core.PodScheduled)
		return cond != nil && cond.Reason == "Unschedulable" && strings.Contains(cond.Message, plugins.ReasonCannotAllocate)
	}, "second pod Pending: the only GPU is taken")
	second, err := claims.Get(ctx, "second")
	require.NoError(t, err)
	assert.Nil(t, second.Status.Allocation)
}
