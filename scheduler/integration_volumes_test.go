package scheduler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/plugins"
)

func volumeClaim(name, class string) *core.PersistentVolumeClaim {
	return &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: core.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
			Resources: core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")}}}}
}

func podWithClaim(name, claim string) *core.Pod {
	p := simcluster.Pod(name, "", "")
	p.Spec.Volumes = []core.Volume{{Name: "data", VolumeSource: core.VolumeSource{
		PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	return p
}

// TestVolumeBindingScheduling: a pod whose claim is unbound and Immediate
// stays Pending with kube's reason; a pod whose claim waits for its first
// consumer gets the claim annotated with the chosen node and is bound
// only once the claim is bound (here by the test, playing the
// provisioner and binder), to the node its volume is pinned to.
func TestVolumeBindingScheduling(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	for _, n := range []string{"n1", "n2"} {
		_, err := client.For[core.Node](c.Admin, "").Create(ctx, simcluster.Node(n, "z", "4", "8Gi"))
		require.NoError(t, err)
	}
	wait := storage.VolumeBindingWaitForFirstConsumer
	_, err := client.For[storage.StorageClass](c.Admin, "").Create(ctx, &storage.StorageClass{ObjectMeta: meta.ObjectMeta{Name: "wait"},
		Provisioner: "orkit.io/local-path", VolumeBindingMode: &wait})
	require.NoError(t, err)
	claims := client.For[core.PersistentVolumeClaim](c.Admin, "default")
	pods := client.For[core.Pod](c.Admin, "default")
	_, err = claims.Create(ctx, volumeClaim("orphan", "missing-class"))
	require.NoError(t, err)
	_, err = claims.Create(ctx, volumeClaim("data", "wait"))
	require.NoError(t, err)
	startScheduler(t, c, scheduler.Config{VolumeBinding: true, DisablePreemption: true})

	_, err = pods.Create(ctx, podWithClaim("stuck", "orphan"))
	require.NoError(t, err)
	testnode.Eventually(t, 20*time.Second, func() bool {
		p, err := pods.Get(ctx, "stuck")
		require.NoError(t, err)
		_, cond := core.GetPodCondition(&p.Status, core.PodScheduled)
		return cond != nil && cond.Reason == "Unschedulable" && strings.Contains(cond.Message, plugins.ReasonUnboundImmediateClaims)
	}, "pod Pending with the unbound-claim reason")

	_, err = pods.Create(ctx, podWithClaim("web", "data"))
	require.NoError(t, err)
	var node string
	testnode.Eventually(t, 20*time.Second, func() bool {
		pvc, err := claims.Get(ctx, "data")
		require.NoError(t, err)
		node = pvc.Annotations[storage.AnnotationSelectedNode]
		return node != ""
	}, "claim annotated with the selected node")
	p, err := pods.Get(ctx, "web")
	require.NoError(t, err)
	assert.Empty(t, p.Spec.NodeName, "not bound before its volume")

	// The provisioner's part: a volume pinned to the node, bound to the claim.
	pv := &core.PersistentVolume{ObjectMeta: meta.ObjectMeta{Name: "pv-data"}, Spec: core.PersistentVolumeSpec{
		Capacity:               core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")},
		PersistentVolumeSource: core.PersistentVolumeSource{HostPath: &core.HostPathVolumeSource{Path: "/tmp/pv-data"}},
		AccessModes:            []core.PersistentVolumeAccessMode{core.ReadWriteOnce}, StorageClassName: "wait",
		NodeAffinity: &core.VolumeNodeAffinity{Required: &core.NodeSelector{NodeSelectorTerms: []core.NodeSelectorTerm{{
			MatchExpressions: []core.NodeSelectorRequirement{{Key: core.LabelHostname, Operator: core.NodeSelectorOpIn, Values: []string{node}}}}}}}}}
	_, err = client.For[core.PersistentVolume](c.Admin, "").Create(ctx, pv)
	require.NoError(t, err)
	pvc, err := claims.Get(ctx, "data")
	require.NoError(t, err)
	pvc.Spec.VolumeName = "pv-data"
	pvc, err = claims.Update(ctx, pvc)
	require.NoError(t, err)
	pvc.Status.Phase = core.ClaimBound
	_, err = claims.UpdateStatus(ctx, pvc)
	require.NoError(t, err)
	bound := waitBound(t, c.Admin, 1, 20*time.Second)
	require.Contains(t, bound, "web")
	assert.Equal(t, node, bound["web"].Spec.NodeName, "bound to the node its volume was made on")

	// A second pod of the bound claim follows the volume's node affinity.
	_, err = pods.Create(ctx, podWithClaim("web-2", "data"))
	require.NoError(t, err)
	bound = waitBound(t, c.Admin, 2, 20*time.Second)
	assert.Equal(t, node, bound["web-2"].Spec.NodeName)
}

// TestVolumeBindingTimeout: when a WaitForFirstConsumer claim is not bound
// in time the binding fails — the pod stays unbound, with a
// FailedScheduling Event saying why — and is retried.
func TestVolumeBindingTimeout(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	_, err := client.For[core.Node](c.Admin, "").Create(ctx, simcluster.Node("n1", "z", "4", "8Gi"))
	require.NoError(t, err)
	wait := storage.VolumeBindingWaitForFirstConsumer
	_, err = client.For[storage.StorageClass](c.Admin, "").Create(ctx, &storage.StorageClass{ObjectMeta: meta.ObjectMeta{Name: "wait"},
		Provisioner: "example.com/never", VolumeBindingMode: &wait})
	require.NoError(t, err)
	_, err = client.For[core.PersistentVolumeClaim](c.Admin, "default").Create(ctx, volumeClaim("data", "wait"))
	require.NoError(t, err)
	startScheduler(t, c, scheduler.Config{VolumeBinding: true, VolumeBindTimeout: 200 * time.Millisecond, DisablePreemption: true})
	_, err = client.For[core.Pod](c.Admin, "default").Create(ctx, podWithClaim("web", "data"))
	require.NoError(t, err)
	testnode.Eventually(t, 20*time.Second, func() bool {
		evs, err := client.For[core.Event](c.Admin, "default").List(ctx, client.ListOptions{})
		require.NoError(t, err)
		for _, e := range evs.Items {
			if e.Reason == "FailedScheduling" && strings.Contains(e.Message, `Binding rejected: binding volumes of pod default/web: claim "data" not bound`) {
				return true
			}
		}
		return false
	}, "FailedScheduling event for the volume timeout")
	p, err := client.For[core.Pod](c.Admin, "default").Get(ctx, "web")
	require.NoError(t, err)
	assert.Empty(t, p.Spec.NodeName, "never bound before its volume")
}
