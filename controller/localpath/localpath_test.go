package localpath

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/volumebinding"
	"github.com/orkit/orkit/internal/testnode"
)

type env struct {
	c    *client.Client
	base string
}

// setup runs the provisioner and the binder against a control plane with
// one Ready node, node-a, and the local-path classes "wait"
// (WaitForFirstConsumer, Delete), "now" (Immediate, Delete) and "keep"
// (Immediate, Retain).
func setup(t *testing.T) *env {
	t.Helper()
	cl := testnode.StartCluster(t)
	e := &env{c: cl.Client(t, cl.AdminKubeconfig), base: t.TempDir()}
	ctx := context.Background()
	node, err := client.For[core.Node](e.c, "").Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: "node-a",
		Labels: map[string]string{core.LabelHostname: "node-a"}}})
	require.NoError(t, err)
	node.Status.Conditions = []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue}}
	_, err = client.For[core.Node](e.c, "").UpdateStatus(ctx, node)
	require.NoError(t, err)
	_, err = client.For[core.ServiceAccount](e.c, "kube-system").Create(ctx, &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "default"}})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	require.NoError(t, EnsureClass(ctx, e.c, Class("wait", "", true)))
	now := Class("now", "", false)
	imm := storage.VolumeBindingImmediate
	now.VolumeBindingMode = &imm
	require.NoError(t, EnsureClass(ctx, e.c, now))
	keep := Class("keep", "", false)
	retain := core.PersistentVolumeReclaimRetain
	keep.VolumeBindingMode, keep.ReclaimPolicy = &imm, &retain
	require.NoError(t, EnsureClass(ctx, e.c, keep))
	require.NoError(t, EnsureClass(ctx, e.c, Class("wait", "", false)), "an existing class is left alone")

	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	lp, err := New(m, Config{BaseDir: e.base, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	vb, err := volumebinding.New(m, volumebinding.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(lp))
	require.NoError(t, m.Add(vb))
	testnode.RunManager(t, m)
	return e
}

func (e *env) claim(t *testing.T, name, class string, ann map[string]string) *core.PersistentVolumeClaim {
	t.Helper()
	pvc := &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Name: name, Annotations: ann},
		Spec: core.PersistentVolumeClaimSpec{AccessModes: []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
			Resources: core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")}}}}
	if class != "" {
		pvc.Spec.StorageClassName = &class
	}
	got, err := client.For[core.PersistentVolumeClaim](e.c, "default").Create(context.Background(), pvc)
	require.NoError(t, err)
	return got
}

func (e *env) getClaim(t *testing.T, name string) *core.PersistentVolumeClaim {
	t.Helper()
	pvc, err := client.For[core.PersistentVolumeClaim](e.c, "default").Get(context.Background(), name)
	require.NoError(t, err)
	return pvc
}

func (e *env) volume(name string) (*core.PersistentVolume, error) {
	return client.For[core.PersistentVolume](e.c, "").Get(context.Background(), name)
}

func (e *env) bound(t *testing.T, name string) *core.PersistentVolume {
	t.Helper()
	var pv *core.PersistentVolume
	testnode.Eventually(t, 20*time.Second, func() bool {
		pvc := e.getClaim(t, name)
		if pvc.Status.Phase != core.ClaimBound {
			return false
		}
		var err error
		pv, err = e.volume(pvc.Spec.VolumeName)
		return err == nil && pv.Status.Phase == core.VolumeBound
	}, "claim %s bound", name)
	return pv
}

func (e *env) helper(volume string) (*core.Pod, error) {
	return client.For[core.Pod](e.c, "kube-system").Get(context.Background(), helperName(volume))
}

// finishHelper plays the kubelet: the helper pod ends in phase.
func (e *env) finishHelper(t *testing.T, volume string, phase core.PodPhase) {
	t.Helper()
	var pod *core.Pod
	testnode.Eventually(t, 20*time.Second, func() bool { var err error; pod, err = e.helper(volume); return err == nil }, "helper pod of %s", volume)
	pod.Status.Phase = phase
	_, err := client.For[core.Pod](e.c, "kube-system").UpdateStatus(context.Background(), pod)
	require.NoError(t, err)
}

func TestImmediateProvisioningAndDelete(t *testing.T) {
	e := setup(t)
	pvc := e.claim(t, "data", "now", nil)
	pv := e.bound(t, "data")
	assert.Equal(t, VolumeName(pvc), pv.Name)
	assert.Equal(t, ProvisionerName, pv.Annotations[AnnProvisionedBy])
	require.NotNil(t, pv.Spec.HostPath)
	assert.Equal(t, filepath.Join(e.base, pv.Name+"_default_data"), pv.Spec.HostPath.Path)
	assert.Equal(t, "DirectoryOrCreate", string(*pv.Spec.HostPath.Type))
	assert.Equal(t, "node-a", NodeOf(pv), "pinned to the only Ready node")
	assert.Equal(t, core.PersistentVolumeReclaimDelete, pv.Spec.PersistentVolumeReclaimPolicy)
	assert.Equal(t, "now", pv.Spec.StorageClassName)

	require.NoError(t, client.For[core.PersistentVolumeClaim](e.c, "default").Delete(context.Background(), "data", nil))
	testnode.Eventually(t, 20*time.Second, func() bool { _, err := e.helper(pv.Name); return err == nil }, "helper pod created")
	helper, err := e.helper(pv.Name)
	require.NoError(t, err)
	assert.Equal(t, "node-a", helper.Spec.NodeName, "the directory is removed on its node")
	assert.Equal(t, []string{"/hello", "rm-dir", "/data/" + filepath.Base(pv.Spec.HostPath.Path)}, helper.Spec.Containers[0].Command)
	assert.Equal(t, e.base, helper.Spec.Volumes[0].HostPath.Path)
	_, err = e.volume(pv.Name)
	require.NoError(t, err, "the volume stays until its directory is gone")

	e.finishHelper(t, pv.Name, core.PodSucceeded)
	testnode.Eventually(t, 20*time.Second, func() bool { _, err := e.volume(pv.Name); return apierrors.IsNotFound(err) }, "volume deleted")
	testnode.Eventually(t, 20*time.Second, func() bool { _, err := e.helper(pv.Name); return apierrors.IsNotFound(err) }, "helper pod deleted")
}

func TestWaitForFirstConsumer(t *testing.T) {
	e := setup(t)
	e.claim(t, "later", "wait", nil)
	e.claim(t, "placed", "wait", map[string]string{storage.AnnotationSelectedNode: "node-a"})
	pv := e.bound(t, "placed")
	assert.Equal(t, "node-a", NodeOf(pv))
	assert.Equal(t, core.ClaimPending, e.getClaim(t, "later").Status.Phase, "no volume before the scheduler picks a node")
	_, err := e.volume(VolumeName(e.getClaim(t, "later")))
	assert.True(t, apierrors.IsNotFound(err), "nothing provisioned for the waiting claim")

	// The scheduler annotates the claim: it is provisioned on that node.
	pvc := e.getClaim(t, "later")
	pvc.Annotations = map[string]string{storage.AnnotationSelectedNode: "node-a"}
	_, err = client.For[core.PersistentVolumeClaim](e.c, "default").Update(context.Background(), pvc)
	require.NoError(t, err)
	assert.Equal(t, "node-a", NodeOf(e.bound(t, "later")))
}

func TestRetainAndFailedCleanup(t *testing.T) {
	e := setup(t)
	e.claim(t, "kept", "keep", nil)
	kept := e.bound(t, "kept")
	e.claim(t, "gone", "now", nil)
	gone := e.bound(t, "gone")
	pvcs := client.For[core.PersistentVolumeClaim](e.c, "default")
	require.NoError(t, pvcs.Delete(context.Background(), "kept", nil))
	require.NoError(t, pvcs.Delete(context.Background(), "gone", nil))

	// Delete whose helper fails: the volume is Failed with the reason, kept.
	e.finishHelper(t, gone.Name, core.PodFailed)
	testnode.Eventually(t, 20*time.Second, func() bool {
		pv, err := e.volume(gone.Name)
		return err == nil && pv.Status.Phase == core.VolumeFailed
	}, "volume Failed")
	pv, err := e.volume(gone.Name)
	require.NoError(t, err)
	assert.Contains(t, pv.Status.Message, "cleanup pod kube-system/"+helperName(gone.Name)+" failed on node node-a")

	// Retain: Released and kept, no helper pod.
	testnode.Eventually(t, 20*time.Second, func() bool {
		pv, err := e.volume(kept.Name)
		return err == nil && pv.Status.Phase == core.VolumeReleased
	}, "retained volume Released")
	_, err = e.helper(kept.Name)
	assert.True(t, apierrors.IsNotFound(err), "a retained volume's directory is kept")
}

// TestForgedVolumeOutsideBaseDir: a volume that claims to be provisioned
// here but points outside the base directory is never cleaned up.
func TestForgedVolumeOutsideBaseDir(t *testing.T) {
	e := setup(t)
	dirOrCreate := core.HostPathType("DirectoryOrCreate")
	_, err := client.For[core.PersistentVolume](e.c, "").Create(context.Background(), &core.PersistentVolume{
		ObjectMeta: meta.ObjectMeta{Name: "forged", Annotations: map[string]string{AnnProvisionedBy: ProvisionerName}},
		Spec: core.PersistentVolumeSpec{Capacity: core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")},
			PersistentVolumeSource:        core.PersistentVolumeSource{HostPath: &core.HostPathVolumeSource{Path: "/etc", Type: &dirOrCreate}},
			AccessModes:                   []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: core.PersistentVolumeReclaimDelete, StorageClassName: "manual"},
	})
	require.NoError(t, err)
	e.claim(t, "victim", "manual", nil)
	e.bound(t, "victim")
	require.NoError(t, client.For[core.PersistentVolumeClaim](e.c, "default").Delete(context.Background(), "victim", nil))
	testnode.Eventually(t, 20*time.Second, func() bool {
		pv, err := e.volume("forged")
		return err == nil && pv.Status.Phase == core.VolumeFailed
	}, "forged volume Failed")
	pv, err := e.volume("forged")
	require.NoError(t, err)
	assert.Contains(t, pv.Status.Message, "is not the directory of volume forged")
	_, err = e.helper("forged")
	assert.True(t, apierrors.IsNotFound(err), "no helper pod for a path outside the base directory")
}

func TestConfigValidation(t *testing.T) {
	_, err := New(nil, Config{BaseDir: "/x"})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	cl := testnode.StartCluster(t)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.AdminKubeconfig)})
	require.NoError(t, err)
	for _, cfg := range []Config{{}, {BaseDir: "relative/dir"}} {
		_, err := New(m, cfg)
		assert.ErrorIs(t, err, ErrInvalidConfig, "%+v", cfg)
	}
}

func TestNodeOf(t *testing.T) {
	pin := func(reqs ...core.NodeSelectorRequirement) *core.PersistentVolume {
		return &core.PersistentVolume{Spec: core.PersistentVolumeSpec{NodeAffinity: &core.VolumeNodeAffinity{
			Required: &core.NodeSelector{NodeSelectorTerms: []core.NodeSelectorTerm{{MatchExpressions: reqs}}}}}}
	}
	tests := []struct {
		name string
		pv   *core.PersistentVolume
		want string
	}{
		{"no affinity", &core.PersistentVolume{}, ""},
		{"hostname in one", pin(core.NodeSelectorRequirement{Key: core.LabelHostname, Operator: core.NodeSelectorOpIn, Values: []string{"n1"}}), "n1"},
		{"hostname in two", pin(core.NodeSelectorRequirement{Key: core.LabelHostname, Operator: core.NodeSelectorOpIn, Values: []string{"n1", "n2"}}), ""},
		{"other label", pin(core.NodeSelectorRequirement{Key: "zone", Operator: core.NodeSelectorOpIn, Values: []string{"a"}}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, NodeOf(tt.pv)) })
	}
}
