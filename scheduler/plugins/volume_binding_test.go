package plugins

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
)

func listerOf[T meta.Object](t *testing.T, objs ...T) informer.Lister[T] {
	t.Helper()
	ix := informer.NewIndexer[T](nil)
	for _, o := range objs {
		_, _, err := ix.Put(o)
		require.NoError(t, err)
	}
	return informer.NewLister(ix)
}

func class(name string, mode storage.VolumeBindingMode) *storage.StorageClass {
	return &storage.StorageClass{ObjectMeta: meta.ObjectMeta{Name: name}, Provisioner: "orkit.io/local-path", VolumeBindingMode: &mode}
}

func pvcOf(name, class, volume string, ann map[string]string) *core.PersistentVolumeClaim {
	pvc := &core.PersistentVolumeClaim{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, UID: meta.UID("uid-" + name), Annotations: ann},
		Spec: core.PersistentVolumeClaimSpec{VolumeName: volume}}
	if class != "" {
		pvc.Spec.StorageClassName = &class
	}
	if volume != "" {
		pvc.Status.Phase = core.ClaimBound
	}
	return pvc
}

func pinnedVolume(name, node string) *core.PersistentVolume {
	pv := &core.PersistentVolume{ObjectMeta: meta.ObjectMeta{Name: name}}
	if node != "" {
		pv.Spec.NodeAffinity = &core.VolumeNodeAffinity{Required: &core.NodeSelector{NodeSelectorTerms: []core.NodeSelectorTerm{{
			MatchExpressions: []core.NodeSelectorRequirement{{Key: core.LabelHostname, Operator: core.NodeSelectorOpIn, Values: []string{node}}}}}}}
	}
	return pv
}

func withClaims(p *core.Pod, claims ...string) *core.Pod {
	for _, c := range claims {
		p.Spec.Volumes = append(p.Spec.Volumes, core.Volume{Name: c, VolumeSource: core.VolumeSource{
			PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
	}
	return p
}

func TestVolumeBinding(t *testing.T) {
	deleting := pvcOf("deleting", "wait", "", nil)
	now := meta.Now()
	deleting.DeletionTimestamp = &now
	vb := &VolumeBinding{
		Claims: listerOf(t,
			pvcOf("bound-a", "wait", "pv-a", nil), pvcOf("bound-free", "", "pv-free", nil), pvcOf("bound-gone", "", "pv-gone", nil),
			pvcOf("imm", "now", "", nil), pvcOf("noclass", "", "", nil), pvcOf("unknownclass", "missing", "", nil),
			pvcOf("delayed", "wait", "", nil), pvcOf("placed-b", "wait", "", map[string]string{storage.AnnotationSelectedNode: "b"}),
			deleting),
		Volumes: listerOf(t, pinnedVolume("pv-a", "a"), pinnedVolume("pv-free", "")),
		Classes: listerOf(t, class("now", storage.VolumeBindingImmediate), class("wait", storage.VolumeBindingWaitForFirstConsumer)),
	}
	nodeA := node("a", nil, map[string]string{core.LabelHostname: "a"})
	nodeB := node("b", nil, map[string]string{core.LabelHostname: "b"})
	tests := []struct {
		name          string
		claims        []string
		wantPreFilter string // a rejection's message; "skip" for Skip
		wantA, wantB  string // Filter's message per node; "" fits
	}{
		{name: "no claims", wantPreFilter: "skip"},
		{name: "bound volume pinned to a", claims: []string{"bound-a"}, wantB: ReasonVolumeNodeConflict},
		{name: "bound volume without affinity", claims: []string{"bound-free"}},
		{name: "bound to a missing volume", claims: []string{"bound-gone"}, wantA: ReasonVolumeNotExist, wantB: ReasonVolumeNotExist},
		{name: "unbound immediate claim", claims: []string{"imm"}, wantPreFilter: ReasonUnboundImmediateClaims},
		{name: "unbound claim without class", claims: []string{"noclass"}, wantPreFilter: ReasonUnboundImmediateClaims},
		{name: "unbound claim of a missing class", claims: []string{"unknownclass"}, wantPreFilter: ReasonUnboundImmediateClaims},
		{name: "missing claim", claims: []string{"nope"}, wantPreFilter: `persistentvolumeclaim "nope" not found`},
		{name: "deleting claim", claims: []string{"deleting"}, wantPreFilter: `persistentvolumeclaim "deleting" is being deleted`},
		{name: "delayed claim fits anywhere", claims: []string{"delayed"}},
		{name: "delayed claim placed on b", claims: []string{"placed-b"}, wantA: ReasonSelectedNodeConflict},
		{name: "bound and delayed together", claims: []string{"bound-a", "delayed"}, wantB: ReasonVolumeNodeConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			p := withClaims(pod("web", nil), tt.claims...)
			st := vb.PreFilter(ctx, state, p)
			switch tt.wantPreFilter {
			case "skip":
				assert.True(t, st.IsSkip())
				return
			case "":
				require.True(t, st.IsSuccess(), "%v", st)
			default:
				assert.Equal(t, framework.UnschedulableAndUnresolvable, st.Code())
				assert.Equal(t, tt.wantPreFilter, st.Message())
				return
			}
			for n, want := range map[*core.Node]string{nodeA: tt.wantA, nodeB: tt.wantB} {
				got := vb.Filter(ctx, state, p, framework.NewNodeInfo(n))
				if want == "" {
					assert.True(t, got.IsSuccess(), "node %s: %v", n.Name, got)
				} else {
					assert.Equal(t, want, got.Message(), "node %s", n.Name)
				}
			}
		})
	}
}

// TestVolumeBindingPreBindTimesOut: PreBind fails (so the pod is not
// bound) when a claim is not bound in time; a pod whose claims are all
// bound skips PreBind.
func TestVolumeBindingPreBind(t *testing.T) {
	vb := &VolumeBinding{
		Claims:  listerOf(t, pvcOf("bound-free", "", "pv-free", nil), pvcOf("placed-b", "wait", "", map[string]string{storage.AnnotationSelectedNode: "b"})),
		Volumes: listerOf(t, pinnedVolume("pv-free", "")),
		Classes: listerOf(t, class("wait", storage.VolumeBindingWaitForFirstConsumer)),
		// Client is not used: the claim is annotated with the node already.
		BindTimeout: 50 * time.Millisecond, PollInterval: time.Millisecond,
	}
	state := framework.NewCycleState()
	bound := withClaims(pod("bound", nil), "bound-free")
	require.True(t, vb.PreFilter(ctx, state, bound).IsSuccess())
	assert.True(t, vb.PreBind(ctx, state, bound, "b").IsSkip(), "nothing to wait for")

	state = framework.NewCycleState()
	waiting := withClaims(pod("waiting", nil), "placed-b")
	require.True(t, vb.PreFilter(ctx, state, waiting).IsSuccess())
	st := vb.PreBind(ctx, state, waiting, "b")
	require.Equal(t, framework.Error, st.Code())
	assert.Contains(t, st.Err().Error(), `binding volumes of pod ns/waiting: claim "placed-b" not bound`)
}
