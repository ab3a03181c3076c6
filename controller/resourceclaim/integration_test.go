package resourceclaim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/dra"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/resourceclaim"
	"github.com/orkit/orkit/internal/testnode"
)

func claimPod(name string, entries ...string) *core.Pod {
	p := &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       core.PodSpec{Containers: []core.Container{{Name: "c", Image: "busybox"}}},
	}
	for _, e := range entries {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, meta.RawJSON(e))
	}
	return p
}

// TestClaimsFromTemplates: a pod naming a template gets a claim made from
// it (owned by the pod, annotated, recorded in the pod's status), even
// when the template comes after the pod; a pod naming a claim gets none;
// when the pod is done its reservation is dropped, the claim deallocated
// and deleted.
func TestClaimsFromTemplates(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	rc, err := resourceclaim.New(m, resourceclaim.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(rc))
	testnode.RunManager(t, m)
	ctx := context.Background()
	pods := client.For[core.Pod](c, "default")
	claims := client.For[dra.ResourceClaim](c, "default")

	pod, err := pods.Create(ctx, claimPod("gpu-user", `{"name":"gpu","resourceClaimTemplateName":"gpu"}`, `{"name":"shared","resourceClaimName":"shared"}`))
	require.NoError(t, err)
	_, err = client.For[dra.ResourceClaimTemplate](c, "default").Create(ctx, &dra.ResourceClaimTemplate{
		ObjectMeta: meta.ObjectMeta{Name: "gpu", Namespace: "default"},
		Spec: dra.ResourceClaimTemplateSpec{
			ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"team": "a"}},
			Spec: dra.ResourceClaimSpec{Devices: dra.DeviceClaim{Requests: []dra.DeviceRequest{
				{Name: "gpu", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}}}}},
		},
	})
	require.NoError(t, err)

	var name string
	testnode.Eventually(t, 30*time.Second, func() bool {
		p, err := pods.Get(ctx, pod.Name)
		if err != nil {
			return false
		}
		var ok bool
		name, ok, err = dra.PodClaimName(p, dra.PodResourceClaim{Name: "gpu"})
		return err == nil && ok
	}, "pod status records the generated claim")
	claim, err := claims.Get(ctx, name)
	require.NoError(t, err)
	assert.Regexp(t, `^gpu-user-gpu-[a-z0-9]{5}$`, claim.Name)
	assert.Equal(t, "gpu", claim.Annotations[resourceclaim.PodClaimNameAnnotation])
	assert.Equal(t, "a", claim.Labels["team"])
	require.Len(t, claim.OwnerReferences, 1)
	assert.Equal(t, pod.UID, claim.OwnerReferences[0].UID)
	assert.Equal(t, "gpu.example.com", claim.Spec.Devices.Requests[0].Exactly.DeviceClassName)
	list, err := claims.List(ctx, client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list.Items, 1, "nothing made for the entry naming a claim")

	// Allocate and reserve as the scheduler does, then finish the pod.
	claim.Finalizers = []string{resourceclaim.DeleteProtectionFinalizer}
	claim, err = claims.Update(ctx, claim)
	require.NoError(t, err)
	claim.Status.Allocation = &dra.AllocationResult{Devices: dra.DeviceAllocationResult{Results: []dra.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: "gpu.example.com", Pool: "node-1", Device: "gpu-0"}}}}
	claim.Status.ReservedFor = []dra.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}
	_, err = claims.UpdateStatus(ctx, claim)
	require.NoError(t, err)
	p, err := pods.Get(ctx, pod.Name)
	require.NoError(t, err)
	p.Status.Phase = core.PodSucceeded
	_, err = pods.UpdateStatus(ctx, p)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		_, err := claims.Get(ctx, name)
		return apierrors.IsNotFound(err)
	}, "the done pod's claim is unreserved, deallocated and deleted")
}

func TestPodClaimsMalformed(t *testing.T) {
	_, err := dra.PodClaims(claimPod("p", `{"name": 1}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.resourceClaims[0]")
	claims, err := dra.PodClaims(claimPod("p", `{"name":"a","resourceClaimName":"x"}`))
	require.NoError(t, err)
	require.Len(t, claims, 1)
	name, ok, err := dra.PodClaimName(claimPod("p"), claims[0])
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "x", name)
}

func TestNewErrors(t *testing.T) {
	_, err := resourceclaim.New(nil, resourceclaim.Config{})
	require.ErrorIs(t, err, resourceclaim.ErrInvalidConfig)
}
