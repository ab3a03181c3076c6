package statefulset

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/garbagecollector"
	"github.com/orkit/orkit/internal/testnode"
)

// setup starts a control plane, a test node agent (binds pods, reports
// them Running and Ready after readyDelay, confirms deletions) and the
// controller.
func setup(t *testing.T, readyDelay time.Duration) *client.Client {
	t.Helper()
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 2, Bind: true, ReadyDelay: readyDelay})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	c, err := New(m, Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(c))
	testnode.RunManager(t, m)
	return admin
}

func webSet(ns string, replicas int32, policy apps.PodManagementPolicyType) *apps.StatefulSet {
	labels := map[string]string{"app": "web"}
	return &apps.StatefulSet{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: ns},
		Spec: apps.StatefulSetSpec{
			Replicas: &replicas, ServiceName: "web-svc", PodManagementPolicy: policy,
			Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labels},
				Spec: core.PodSpec{Containers: []core.Container{{Name: "web", Image: "orkit.local/hello:v1"}}}},
			VolumeClaimTemplates: []core.PersistentVolumeClaim{{
				ObjectMeta: meta.ObjectMeta{Name: "data"},
				Spec: core.PersistentVolumeClaimSpec{AccessModes: []core.PersistentVolumeAccessMode{core.ReadWriteOnce},
					Resources: core.VolumeResourceRequirements{Requests: core.ResourceList{core.ResourceStorage: resource.MustParse("1Gi")}}},
			}},
		},
	}
}

// podLog follows the pods of a namespace through a watch and records, in
// the order the server sent them, additions and deletions, and which pods
// were Running and Ready when each addition was seen.
type podLog struct {
	mu      sync.Mutex
	ready   map[string]bool
	added   []string
	readyAt map[string][]string // pod → pods ready when it was added
	deleted []string
}

func watchPods(t *testing.T, c *client.Client, ns string) *podLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := client.For[core.Pod](c, ns).Watch(ctx, client.ListOptions{})
	require.NoError(t, err)
	l := &podLog{ready: map[string]bool{}, readyAt: map[string][]string{}}
	go func() {
		for ev := range ch {
			l.mu.Lock()
			p := ev.Object
			switch ev.Type {
			case meta.Added:
				l.added = append(l.added, p.Name)
				for n, ok := range l.ready {
					if ok {
						l.readyAt[p.Name] = append(l.readyAt[p.Name], n)
					}
				}
			case meta.Deleted:
				l.deleted = append(l.deleted, p.Name)
				delete(l.ready, p.Name)
			}
			if ev.Type != meta.Deleted {
				l.ready[p.Name] = runningAndReady(p) && p.DeletionTimestamp == nil
			}
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *podLog) snapshot() (added, deleted []string, readyAt map[string][]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ra := map[string][]string{}
	for k, v := range l.readyAt {
		ra[k] = append([]string(nil), v...)
	}
	return append([]string(nil), l.added...), append([]string(nil), l.deleted...), ra
}

func getSet(t *testing.T, c *client.Client, ns string) *apps.StatefulSet {
	t.Helper()
	s, err := client.For[apps.StatefulSet](c, ns).Get(context.Background(), "web")
	require.NoError(t, err)
	return s
}

func scale(t *testing.T, c *client.Client, ns string, n int32) {
	t.Helper()
	for {
		s := getSet(t, c, ns)
		s.Spec.Replicas = &n
		_, err := client.For[apps.StatefulSet](c, ns).Update(context.Background(), s)
		if err == nil {
			return
		}
		require.True(t, isConflict(err), "update: %v", err)
	}
}

func TestOrderedReadyCreatesInOrderAndDeletesInReverse(t *testing.T) {
	c := setup(t, 150*time.Millisecond)
	ctx := context.Background()
	ns := "default"
	log := watchPods(t, c, ns)
	_, err := client.For[apps.StatefulSet](c, ns).Create(ctx, webSet(ns, 3, apps.OrderedReadyPodManagement))
	require.NoError(t, err)

	testnode.Eventually(t, 30*time.Second, func() bool {
		s := getSet(t, c, ns)
		return s.Status.ReadyReplicas == 3 && s.Status.ObservedGeneration == s.Generation
	}, "three ready replicas")
	added, _, readyAt := log.snapshot()
	require.Equal(t, []string{"web-0", "web-1", "web-2"}, added, "created strictly in ordinal order")
	assert.Empty(t, readyAt["web-0"])
	assert.Contains(t, readyAt["web-1"], "web-0", "web-1 was created only after web-0 was Running and Ready")
	assert.Subset(t, readyAt["web-2"], []string{"web-0", "web-1"})
	assert.Contains(t, readyAt["web-2"], "web-1")

	for i := range 3 {
		pod, err := client.For[core.Pod](c, ns).Get(ctx, fmt.Sprintf("web-%d", i))
		require.NoError(t, err)
		assert.Equal(t, pod.Name, pod.Spec.Hostname)
		assert.Equal(t, "web-svc", pod.Spec.Subdomain)
		assert.Equal(t, fmt.Sprint(i), pod.Labels[apps.PodIndexLabel])
		require.Len(t, pod.Spec.Volumes, 1)
		assert.Equal(t, fmt.Sprintf("data-web-%d", i), pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	}

	scale(t, c, ns, 0)
	testnode.Eventually(t, 30*time.Second, func() bool {
		_, deleted, _ := log.snapshot()
		return len(deleted) == 3
	}, "all pods deleted")
	_, deleted, _ := log.snapshot()
	assert.Equal(t, []string{"web-2", "web-1", "web-0"}, deleted, "deleted in reverse ordinal order")

	claims, err := client.For[core.PersistentVolumeClaim](c, ns).List(ctx, client.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, pvc := range claims.Items {
		names = append(names, pvc.Name)
	}
	assert.ElementsMatch(t, []string{"data-web-0", "data-web-1", "data-web-2"}, names, "claims remain after scale-down")
	testnode.Eventually(t, 10*time.Second, func() bool { s := getSet(t, c, ns); return s.Status.Replicas == 0 }, "status shows 0 replicas")
}

func TestParallelAndRollingUpdateWithPartition(t *testing.T) {
	c := setup(t, 0)
	ctx := context.Background()
	ns := "default"
	set := webSet(ns, 3, apps.ParallelPodManagement)
	set.Spec.VolumeClaimTemplates = nil
	_, err := client.For[apps.StatefulSet](c, ns).Create(ctx, set)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool { return getSet(t, c, ns).Status.ReadyReplicas == 3 }, "three ready")
	first := getSet(t, c, ns).Status.UpdateRevision
	require.NotEmpty(t, first)

	// New template with partition 1: web-2 and web-1 move, web-0 stays.
	for {
		s := getSet(t, c, ns)
		s.Spec.Template.Spec.Containers[0].Image = "orkit.local/hello:v2"
		one := int32(1)
		s.Spec.UpdateStrategy = apps.StatefulSetUpdateStrategy{Type: apps.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &apps.RollingUpdateStatefulSetStrategy{Partition: &one}}
		if _, err = client.For[apps.StatefulSet](c, ns).Update(ctx, s); err == nil {
			break
		}
		require.True(t, isConflict(err), "update: %v", err)
	}
	revOf := func(name string) string {
		p, err := client.For[core.Pod](c, ns).Get(ctx, name)
		if err != nil {
			return ""
		}
		return p.Labels[apps.ControllerRevisionHashLabelKey] + "/" + p.Spec.Containers[0].Image
	}
	testnode.Eventually(t, 30*time.Second, func() bool {
		s := getSet(t, c, ns)
		return s.Status.UpdatedReplicas == 2 && s.Status.ReadyReplicas == 3
	}, "two pods updated")
	upd := getSet(t, c, ns).Status.UpdateRevision
	assert.NotEqual(t, first, upd)
	assert.Equal(t, first+"/orkit.local/hello:v1", revOf("web-0"), "below the partition")
	assert.Equal(t, upd+"/orkit.local/hello:v2", revOf("web-1"))
	assert.Equal(t, upd+"/orkit.local/hello:v2", revOf("web-2"))
	assert.Equal(t, first, getSet(t, c, ns).Status.CurrentRevision, "the rollout is not complete")

	revs, err := client.For[apps.ControllerRevision](c, ns).List(ctx, client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, revs.Items, 2)

	// A deleted pod below the partition comes back at the current revision.
	require.NoError(t, client.For[core.Pod](c, ns).Delete(ctx, "web-0", nil))
	testnode.Eventually(t, 30*time.Second, func() bool {
		return revOf("web-0") == first+"/orkit.local/hello:v1" && getSet(t, c, ns).Status.ReadyReplicas == 3
	}, "web-0 recreated at the current revision")
}

func TestNamingHelpers(t *testing.T) {
	set := &apps.StatefulSet{ObjectMeta: meta.ObjectMeta{Name: "web"}}
	tests := []struct {
		name string
		ord  int
		ok   bool
	}{
		{"web-0", 0, true}, {"web-12", 12, true}, {"web-", 0, false}, {"web-01", 0, false},
		{"web-x", 0, false}, {"db-1", 0, false}, {"web--1", 0, false}, {"web-1-2", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ord, ok := ParseOrdinal(set, tt.name)
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.ord, ord)
				assert.Equal(t, tt.name, PodName(set, ord))
			}
		})
	}
	assert.Equal(t, "data-web-3", ClaimName(set, "data", 3))
}

func FuzzParseOrdinal(f *testing.F) {
	for _, s := range []string{"web-0", "web-10", "web-", "web-007", "web-99999999999999999999", "x"} {
		f.Add(s)
	}
	set := &apps.StatefulSet{ObjectMeta: meta.ObjectMeta{Name: "web"}}
	f.Fuzz(func(t *testing.T, name string) {
		ord, ok := ParseOrdinal(set, name)
		if ok && PodName(set, ord) != name {
			t.Fatalf("%q parsed to %d, which names %q", name, ord, PodName(set, ord))
		}
	})
}

func TestTemplateHashStable(t *testing.T) {
	tmpl := &webSet("ns", 1, "").Spec.Template
	assert.Equal(t, TemplateHash(tmpl, 0), TemplateHash(meta.DeepCopy(tmpl), 0))
	assert.NotEqual(t, TemplateHash(tmpl, 0), TemplateHash(tmpl, 1))
	other := meta.DeepCopy(tmpl)
	other.Spec.Containers[0].Image = "x"
	assert.NotEqual(t, TemplateHash(tmpl, 0), TemplateHash(other, 0))
}

func isConflict(err error) bool { return apierrors.IsConflict(err) }

// TestAdoptAndRelease: an orphan named like the set's pod and matching
// its selector is adopted (not replaced); a pod relabelled out of the
// selector is released.
func TestAdoptAndRelease(t *testing.T) {
	c := setup(t, 0)
	ctx := context.Background()
	ns := "default"
	set := webSet(ns, 2, apps.ParallelPodManagement)
	set.Spec.VolumeClaimTemplates = nil
	// OnDelete: an adopted pod carries no revision label, and a rolling
	// update would replace it.
	set.Spec.UpdateStrategy = apps.StatefulSetUpdateStrategy{Type: apps.OnDeleteStatefulSetStrategyType}
	orphan, err := client.For[core.Pod](c, ns).Create(ctx, &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec:       set.Spec.Template.Spec,
	})
	require.NoError(t, err)
	created, err := client.For[apps.StatefulSet](c, ns).Create(ctx, set)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool { return getSet(t, c, ns).Status.ReadyReplicas == 2 }, "two ready")
	p, err := client.For[core.Pod](c, ns).Get(ctx, "web-0")
	require.NoError(t, err)
	assert.Equal(t, orphan.UID, p.UID, "adopted, not replaced")
	require.NotNil(t, meta.ControllerOf(&p.ObjectMeta))
	assert.Equal(t, created.UID, meta.ControllerOf(&p.ObjectMeta).UID)

	for {
		p, err := client.For[core.Pod](c, ns).Get(ctx, "web-1")
		require.NoError(t, err)
		p.Labels["app"] = "other"
		if _, err = client.For[core.Pod](c, ns).Update(ctx, p); err == nil {
			break
		}
		require.True(t, isConflict(err), "update: %v", err)
	}
	testnode.Eventually(t, 30*time.Second, func() bool {
		p, err := client.For[core.Pod](c, ns).Get(ctx, "web-1")
		return err == nil && meta.ControllerOf(&p.ObjectMeta) == nil
	}, "web-1 released")
}

// TestClaimRetentionDelete: with whenScaled=Delete and whenDeleted=Delete
// the garbage collector removes the claims of condemned pods, then the
// rest with the set.
func TestClaimRetentionDelete(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, c, testnode.Config{Nodes: 1, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	sts, err := New(m, Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(sts))
	gc, err := garbagecollector.New(m, garbagecollector.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(gc))
	testnode.RunManager(t, m)

	ctx := context.Background()
	ns := "default"
	set := webSet(ns, 3, apps.ParallelPodManagement)
	set.Spec.PersistentVolumeClaimRetentionPolicy = &apps.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: apps.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: apps.DeletePersistentVolumeClaimRetentionPolicyType}
	_, err = client.For[apps.StatefulSet](c, ns).Create(ctx, set)
	require.NoError(t, err)
	claims := func() []string {
		l, err := client.For[core.PersistentVolumeClaim](c, ns).List(ctx, client.ListOptions{})
		require.NoError(t, err)
		var out []string
		for _, p := range l.Items {
			if p.DeletionTimestamp == nil {
				out = append(out, p.Name)
			}
		}
		return out
	}
	testnode.Eventually(t, 30*time.Second, func() bool { return getSet(t, c, ns).Status.ReadyReplicas == 3 }, "three ready")
	assert.ElementsMatch(t, []string{"data-web-0", "data-web-1", "data-web-2"}, claims())

	scale(t, c, ns, 1)
	testnode.Eventually(t, 30*time.Second, func() bool { return len(claims()) == 1 }, "claims of condemned pods collected")
	assert.Equal(t, []string{"data-web-0"}, claims())

	require.NoError(t, client.For[apps.StatefulSet](c, ns).Delete(ctx, "web", nil))
	testnode.Eventually(t, 30*time.Second, func() bool { return len(claims()) == 0 }, "the rest go with the set")
}

func TestClaimOwners(t *testing.T) {
	set := webSet("ns", 1, "")
	set.UID = "set-uid"
	other := meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "x"}
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web-2", UID: "pod-uid"}}
	stalePod := meta.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "web-2", UID: "old"}
	assert.Equal(t, []meta.OwnerReference{other}, claimOwners(set, []meta.OwnerReference{other, stalePod}, 2, nil), "retain: only foreign owners stay")
	assert.Nil(t, claimOwners(set, nil, 2, pod), "retain: a condemned pod does not own its claim")
	set.Spec.PersistentVolumeClaimRetentionPolicy = &apps.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: apps.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: apps.DeletePersistentVolumeClaimRetentionPolicyType}
	got := claimOwners(set, []meta.OwnerReference{other}, 2, pod)
	require.Len(t, got, 2, "a condemned pod's claim: the pod alone, or the set would keep it")
	assert.Equal(t, meta.UID("pod-uid"), got[1].UID)
	got = claimOwners(set, got, 2, nil)
	require.Len(t, got, 2, "back in range: the pod reference goes, the set's comes back")
	assert.Equal(t, meta.UID("set-uid"), got[1].UID)
	assert.False(t, *got[1].Controller)
}

// TestNextCondemned: what a scale-down deletes now. OrderedReady deletes
// the highest condemned pod when it is Running and Ready or is itself the
// first unhealthy pod, and waits for a terminating pod; Parallel deletes
// every condemned pod at once.
func TestNextCondemned(t *testing.T) {
	ready := func() *core.Pod {
		return &core.Pod{Status: core.PodStatus{Phase: core.PodRunning,
			Conditions: []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue}}}}
	}
	unready := func() *core.Pod { return &core.Pod{Status: core.PodStatus{Phase: core.PodRunning}} }
	terminating := func() *core.Pod { p := ready(); now := meta.Now(); p.DeletionTimestamp = &now; return p }
	cases := []struct {
		name       string
		pods       map[int]*core.Pod
		replicas   int
		ordered    bool
		wantOrds   []int
		wantWaited bool
	}{
		{"nothing condemned", map[int]*core.Pod{0: ready(), 1: ready()}, 2, true, nil, false},
		{"highest first", map[int]*core.Pod{0: ready(), 1: ready(), 2: ready()}, 1, true, []int{2}, true},
		{"unhealthy condemned is the first unhealthy: deleted", map[int]*core.Pod{0: ready(), 1: ready(), 2: unready()}, 2, true, []int{2}, true},
		// (run stops in scaleUp before it gets here: an unhealthy pod in range halts everything)
		{"a Running and Ready condemned pod goes", map[int]*core.Pod{0: unready(), 1: ready(), 2: ready()}, 1, true, []int{2}, true},
		{"all unhealthy, scale to 0: halts", map[int]*core.Pod{0: unready(), 1: unready(), 2: unready()}, 0, true, nil, true},
		{"healthy highest behind a lower unhealthy condemned one", map[int]*core.Pod{0: ready(), 1: unready(), 2: ready()}, 0, true, []int{2}, true},
		{"waits for a terminating pod", map[int]*core.Pod{0: ready(), 1: ready(), 2: terminating()}, 1, true, nil, true},
		{"parallel: every condemned pod", map[int]*core.Pod{0: unready(), 1: ready(), 2: unready()}, 0, false, []int{2, 1, 0}, true},
		{"parallel: skips terminating", map[int]*core.Pod{0: ready(), 1: terminating(), 2: ready()}, 0, false, []int{2, 0}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ords, wait := nextCondemned(c.pods, 0, c.replicas, c.ordered)
			assert.Equal(t, c.wantOrds, ords)
			assert.Equal(t, c.wantWaited, wait)
		})
	}
}
