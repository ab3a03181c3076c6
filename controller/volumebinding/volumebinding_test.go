package volumebinding

import (
	"context"
	"strings"
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
	"github.com/orkit/orkit/internal/testnode"
)

func volume(name, class, size string, policy core.PersistentVolumeReclaimPolicy, modes ...core.PersistentVolumeAccessMode) *core.PersistentVolume {
	if len(modes) == 0 {
		modes = []core.PersistentVolumeAccessMode{core.ReadWriteOnce}
	}
	return &core.PersistentVolume{
		ObjectMeta: meta.ObjectMeta{Name: name},
		Spec: core.PersistentVolumeSpec{
			Capacity:                      core.ResourceList{core.ResourceStorage: resource.MustParse(size)},
			PersistentVolumeSource:        core.PersistentVolumeSource{HostPath: &core.HostPathVolumeSource{Path: "/tmp/" + name}},
			AccessModes:                   modes,
			PersistentVolumeReclaimPolicy: policy,
			StorageClassName:              class,
		},
	}
}

func claim(name, class, size string, modes ...core.PersistentVolumeAccessMode) *core.PersistentVolumeClaim {
	if len(modes) == 0 {
		modes = []core.PersistentVolumeAccessMode{core.ReadWriteOnce}
	}
	pvc := &core.PersistentVolumeClaim{
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", UID: meta.UID("uid-" + name)},
		Spec: core.PersistentVolumeClaimSpec{AccessModes: modes,
			Resources: core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: resource.MustParse(size)}}},
	}
	if class != "" {
		pvc.Spec.StorageClassName = &class
	}
	return pvc
}

func TestFindVolume(t *testing.T) {
	block := core.PersistentVolumeBlock
	small := volume("small", "", "1Gi", core.PersistentVolumeReclaimRetain)
	big := volume("big", "", "10Gi", core.PersistentVolumeReclaimRetain)
	medium := volume("medium", "", "2Gi", core.PersistentVolumeReclaimRetain, core.ReadWriteOnce, core.ReadWriteMany)
	fast := volume("fast", "fast", "5Gi", core.PersistentVolumeReclaimRetain)
	raw := volume("raw", "", "5Gi", core.PersistentVolumeReclaimRetain)
	raw.Spec.VolumeMode = &block
	released := volume("released", "", "1Gi", core.PersistentVolumeReclaimRetain)
	released.Status.Phase = core.VolumeReleased
	taken := volume("taken", "", "1Gi", core.PersistentVolumeReclaimRetain)
	taken.Spec.ClaimRef = &core.ObjectReference{Namespace: "default", Name: "other", UID: "x"}
	prebound := volume("prebound", "", "10Gi", core.PersistentVolumeReclaimRetain)
	prebound.Spec.ClaimRef = &core.ObjectReference{Namespace: "default", Name: "mine"}
	labelled := volume("labelled", "", "3Gi", core.PersistentVolumeReclaimRetain)
	labelled.Labels = map[string]string{"tier": "gold"}
	all := []*core.PersistentVolume{big, small, medium, fast, raw, released, taken, labelled}

	rwx := claim("c", "", "1Gi", core.ReadWriteMany)
	rawClaim := claim("c", "", "1Gi")
	rawClaim.Spec.VolumeMode = &block
	gold := claim("c", "", "1Gi")
	gold.Spec.Selector = &meta.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}
	tests := []struct {
		name string
		pvs  []*core.PersistentVolume
		pvc  *core.PersistentVolumeClaim
		want string
	}{
		{"smallest fit", all, claim("c", "", "500Mi"), "small"},
		{"capacity", all, claim("c", "", "1500Mi"), "medium"},
		{"access modes", all, rwx, "medium"},
		{"storage class", all, claim("c", "fast", "1Gi"), "fast"},
		{"volume mode", all, rawClaim, "raw"},
		{"selector", all, gold, "labelled"},
		{"pre-bound wins over smaller", append([]*core.PersistentVolume{prebound}, all...), claim("mine", "", "1Gi"), "prebound"},
		{"too big for all", all, claim("c", "", "100Gi"), ""},
		{"class nobody has", all, claim("c", "slow", "1Gi"), ""},
		{"released and taken are skipped", []*core.PersistentVolume{released, taken}, claim("c", "", "1Gi"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FindVolume(tt.pvs, tt.pvc)
			if tt.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tt.want, got.Name)
		})
	}
}

type env struct {
	c *client.Client
}

func setup(t *testing.T) *env {
	t.Helper()
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	vb, err := New(m, Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(vb))
	testnode.RunManager(t, m)
	return &env{c: admin}
}

func (e *env) createPV(t *testing.T, pv *core.PersistentVolume) {
	t.Helper()
	_, err := client.For[core.PersistentVolume](e.c, "").Create(context.Background(), pv)
	require.NoError(t, err)
}

func (e *env) createPVC(t *testing.T, pvc *core.PersistentVolumeClaim) {
	t.Helper()
	pvc = meta.DeepCopy(pvc)
	pvc.UID = ""
	_, err := client.For[core.PersistentVolumeClaim](e.c, "default").Create(context.Background(), pvc)
	require.NoError(t, err)
}

func (e *env) pvc(t *testing.T, name string) *core.PersistentVolumeClaim {
	t.Helper()
	pvc, err := client.For[core.PersistentVolumeClaim](e.c, "default").Get(context.Background(), name)
	require.NoError(t, err)
	return pvc
}

func (e *env) pv(name string) (*core.PersistentVolume, error) {
	return client.For[core.PersistentVolume](e.c, "").Get(context.Background(), name)
}

func (e *env) boundTo(t *testing.T, claimName string) string {
	t.Helper()
	var vol string
	testnode.Eventually(t, 20*time.Second, func() bool {
		pvc := e.pvc(t, claimName)
		if pvc.Status.Phase != core.ClaimBound || pvc.Spec.VolumeName == "" {
			return false
		}
		pv, err := e.pv(pvc.Spec.VolumeName)
		vol = pvc.Spec.VolumeName
		return err == nil && pv.Status.Phase == core.VolumeBound && pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID == pvc.UID
	}, "claim %s bound", claimName)
	return vol
}

func (e *env) deletePVC(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, client.For[core.PersistentVolumeClaim](e.c, "default").Delete(context.Background(), name, nil))
}

func TestBindingAndReclaim(t *testing.T) {
	e := setup(t)
	e.createPV(t, volume("big", "", "10Gi", core.PersistentVolumeReclaimRetain))
	e.createPV(t, volume("small", "", "1Gi", core.PersistentVolumeReclaimRetain))
	e.createPV(t, volume("disposable", "", "20Gi", core.PersistentVolumeReclaimDelete))

	e.createPVC(t, claim("data", "", "1Gi"))
	assert.Equal(t, "small", e.boundTo(t, "data"), "the smallest volume that fits")
	pvc := e.pvc(t, "data")
	assert.Equal(t, "1Gi", pvc.Status.Capacity.Name(core.ResourceStorage, "").String())

	e.createPVC(t, claim("later", "fast", "1Gi"))
	testnode.Eventually(t, 10*time.Second, func() bool { return e.pvc(t, "later").Status.Phase == core.ClaimPending }, "claim pending")
	e.createPV(t, volume("fast-1", "fast", "2Gi", core.PersistentVolumeReclaimRetain))
	assert.Equal(t, "fast-1", e.boundTo(t, "later"), "a volume that appears later is bound")

	// Retain: the released volume stays, Released, and is not bound again.
	e.deletePVC(t, "data")
	testnode.Eventually(t, 10*time.Second, func() bool {
		pv, err := e.pv("small")
		return err == nil && pv.Status.Phase == core.VolumeReleased
	}, "small released")
	e.createPVC(t, claim("again", "", "1Gi"))
	assert.Equal(t, "big", e.boundTo(t, "again"), "a released volume is not reused")

	// Delete: the volume goes with its claim.
	e.createPVC(t, claim("huge", "", "15Gi"))
	assert.Equal(t, "disposable", e.boundTo(t, "huge"))
	e.deletePVC(t, "huge")
	testnode.Eventually(t, 10*time.Second, func() bool { _, err := e.pv("disposable"); return apierrors.IsNotFound(err) }, "volume deleted")
}

// TestProvisionedVolumeLeftToProvisioner: a released Delete volume that
// a provisioner made is Released but not deleted: its provisioner removes
// the storage first, then the volume.
func TestProvisionedVolumeLeftToProvisioner(t *testing.T) {
	e := setup(t)
	pv := volume("made", "", "1Gi", core.PersistentVolumeReclaimDelete)
	pv.Annotations = map[string]string{AnnProvisionedBy: "example.com/nfs"}
	e.createPV(t, pv)
	e.createPVC(t, claim("mine", "", "1Gi"))
	assert.Equal(t, "made", e.boundTo(t, "mine"))
	e.deletePVC(t, "mine")
	testnode.Eventually(t, 10*time.Second, func() bool {
		got, err := e.pv("made")
		return err == nil && got.Status.Phase == core.VolumeReleased
	}, "volume Released")
	got, err := e.pv("made")
	require.NoError(t, err, "the volume is kept for its provisioner")
	assert.Nil(t, got.DeletionTimestamp)
}

func TestOptionsValidation(t *testing.T) {
	_, err := New(nil, Config{})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// TestClaimNamingItsVolume: a claim that names its volume gets it (the
// volume's side is completed); one naming a volume that does not exist
// is Lost; one naming a volume bound elsewhere is Lost.
func TestClaimNamingItsVolume(t *testing.T) {
	e := setup(t)
	e.createPV(t, volume("chosen", "", "1Gi", core.PersistentVolumeReclaimRetain))
	e.createPV(t, volume("smaller-but-not-chosen", "", "500Mi", core.PersistentVolumeReclaimRetain))
	named := claim("named", "", "100Mi")
	named.Spec.VolumeName = "chosen"
	e.createPVC(t, named)
	assert.Equal(t, "chosen", e.boundTo(t, "named"))

	ghost := claim("ghost", "", "1Gi")
	ghost.Spec.VolumeName = "no-such-volume"
	e.createPVC(t, ghost)
	testnode.Eventually(t, 10*time.Second, func() bool { return e.pvc(t, "ghost").Status.Phase == core.ClaimLost }, "claim Lost")

	thief := claim("thief", "", "1Gi")
	thief.Spec.VolumeName = "chosen"
	e.createPVC(t, thief)
	testnode.Eventually(t, 10*time.Second, func() bool { return e.pvc(t, "thief").Status.Phase == core.ClaimLost }, "claim Lost")
	assert.Equal(t, "chosen", e.boundTo(t, "named"), "the first binding stands")
}

// FuzzFits: Fits never panics on odd claims and volumes, and a volume
// FindVolume picks always fits.
func FuzzFits(f *testing.F) {
	f.Add("1Gi", "2Gi", "", "", "ReadWriteOnce", "app=web")
	f.Add("0", "1", "fast", "fast", "ReadWriteMany", "")
	f.Fuzz(func(t *testing.T, want, have, claimClass, volClass, mode, selector string) {
		wq, err1 := resource.ParseQuantity(want)
		hq, err2 := resource.ParseQuantity(have)
		if err1 != nil || err2 != nil {
			return
		}
		pv := &core.PersistentVolume{Spec: core.PersistentVolumeSpec{Capacity: core.ResourceList{core.ResourceStorage: hq},
			AccessModes: []core.PersistentVolumeAccessMode{core.PersistentVolumeAccessMode(mode)}, StorageClassName: volClass}}
		pvc := &core.PersistentVolumeClaim{Spec: core.PersistentVolumeClaimSpec{
			AccessModes: []core.PersistentVolumeAccessMode{core.PersistentVolumeAccessMode(mode)},
			Resources:   core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: wq}}}}
		if claimClass != "" {
			pvc.Spec.StorageClassName = &claimClass
		}
		if k, v, ok := strings.Cut(selector, "="); ok {
			pvc.Spec.Selector = &meta.LabelSelector{MatchLabels: map[string]string{k: v}}
		}
		fits := Fits(pv, pvc)
		if fits && hq.Cmp(wq) < 0 {
			t.Fatalf("%s volume fits a %s claim", have, want)
		}
		if got := FindVolume([]*core.PersistentVolume{pv}, pvc); (got != nil) != fits {
			t.Fatalf("FindVolume %v disagrees with Fits %v", got != nil, fits)
		}
	})
}

// TestDefaultClassAssignedRetroactively: a claim created before any
// default StorageClass existed gets the default class once one appears;
// a claim with a class, or bound, keeps its own. Waiting claims get
// Kubernetes' explanatory Events.
func TestDefaultClassAssignedRetroactively(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	e.createPVC(t, claim("early", "", "1Gi"))
	e.createPVC(t, claim("named", "slow", "1Gi"))
	testnode.Eventually(t, 10*time.Second, func() bool { return e.pvc(t, "early").Status.Phase == core.ClaimPending }, "claim pending")
	assert.Nil(t, e.pvc(t, "early").Spec.StorageClassName)

	wait := storage.VolumeBindingWaitForFirstConsumer
	_, err := client.For[storage.StorageClass](e.c, "").Create(ctx, &storage.StorageClass{
		ObjectMeta:  meta.ObjectMeta{Name: "local", Annotations: map[string]string{storage.AnnotationDefaultClass: "true"}},
		Provisioner: "orkit.io/local-path", VolumeBindingMode: &wait})
	require.NoError(t, err)
	testnode.Eventually(t, 10*time.Second, func() bool {
		sc := e.pvc(t, "early").Spec.StorageClassName
		return sc != nil && *sc == "local"
	}, "default class assigned")
	assert.Equal(t, "slow", *e.pvc(t, "named").Spec.StorageClassName, "a named class is kept")
	testnode.Eventually(t, 10*time.Second, func() bool {
		evs, err := client.For[core.Event](e.c, "default").List(ctx, client.ListOptions{})
		require.NoError(t, err)
		for _, ev := range evs.Items {
			if ev.InvolvedObject.Name == "early" && ev.Reason == "WaitForFirstConsumer" &&
				ev.Message == "waiting for first consumer to be created before binding" {
				return true
			}
		}
		return false
	}, "WaitForFirstConsumer event")
}
