package daemonset

import (
	"context"
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
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/scheduler"
)

// setup starts a control plane, two test nodes (the agent does not bind:
// the real scheduler places the daemon pods), the scheduler and the
// controller.
// It returns an admin client and the admin kubeconfig (for kubectl).
func setup(t *testing.T) (*client.Client, string) {
	t.Helper()
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 2, ReadyDelay: 50 * time.Millisecond})
	s, err := scheduler.New(scheduler.Config{Client: admin, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	c, err := New(m, Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(c))
	testnode.RunManager(t, m)
	return admin, cl.AdminKubeconfig
}

func daemonSet(ns string) *apps.DaemonSet {
	labels := map[string]string{"app": "agent"}
	return &apps.DaemonSet{
		ObjectMeta: meta.ObjectMeta{Name: "agent", Namespace: ns},
		Spec: apps.DaemonSetSpec{
			Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labels},
				Spec: core.PodSpec{Containers: []core.Container{{Name: "agent", Image: "orkit.local/hello:v1"}}}},
		},
	}
}

func readyNode(name string, labels map[string]string, taints ...core.Taint) *core.Node {
	capacity := core.ResourceList{core.ResourceCPU: resource.MustParse("4"), core.ResourceMemory: resource.MustParse("8Gi"),
		core.ResourcePods: resource.MustParse("110")}
	return &core.Node{
		ObjectMeta: meta.ObjectMeta{Name: name, Labels: labels},
		Spec:       core.NodeSpec{Taints: taints},
		Status: core.NodeStatus{Capacity: capacity, Allocatable: capacity,
			Conditions: []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue, LastHeartbeatTime: meta.Now()}}},
	}
}

// createNode creates node and then writes its status (which a create
// ignores), as a node agent registering would.
func createNode(t *testing.T, c *client.Client, node *core.Node) {
	t.Helper()
	ctx := context.Background()
	got, err := client.For[core.Node](c, "").Create(ctx, node)
	require.NoError(t, err)
	got.Status = node.Status
	_, err = client.For[core.Node](c, "").UpdateStatus(ctx, got)
	require.NoError(t, err)
}

// livePodsByNode returns the DaemonSet's pods not being deleted, by node
// (the bound node, or "" while unscheduled).
func livePodsByNode(t *testing.T, c *client.Client, ns string) map[string][]core.Pod {
	t.Helper()
	l, err := client.For[core.Pod](c, ns).List(context.Background(), client.ListOptions{LabelSelector: "app=agent"})
	require.NoError(t, err)
	out := map[string][]core.Pod{}
	for _, p := range l.Items {
		if p.DeletionTimestamp == nil {
			out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
		}
	}
	return out
}

func onNodes(t *testing.T, c *client.Client, ns string, want ...string) func() bool {
	return func() bool {
		got := livePodsByNode(t, c, ns)
		if len(got) != len(want) {
			return false
		}
		for _, n := range want {
			if len(got[n]) != 1 {
				return false
			}
		}
		return true
	}
}

func TestDaemonSetFollowsNodes(t *testing.T) {
	c, _ := setup(t)
	ctx := context.Background()
	ns := "default"
	nodes := client.For[core.Node](c, "")
	createNode(t, c, readyNode("tainted", nil, core.Taint{Key: "dedicated", Value: "db", Effect: core.TaintEffectNoSchedule}))
	_, err := client.For[apps.DaemonSet](c, ns).Create(ctx, daemonSet(ns))
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, onNodes(t, c, ns, "test-node-0", "test-node-1"), "a pod on each schedulable node, none on the tainted one")

	pod := livePodsByNode(t, c, ns)["test-node-0"][0]
	assert.Equal(t, "test-node-0", TargetNode(&pod))
	terms := pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	require.Len(t, terms, 1)
	assert.Equal(t, []string{"test-node-0"}, terms[0].MatchFields[0].Values, "pinned by node affinity, bound by the scheduler")
	assert.True(t, core.TolerationsTolerateTaint(pod.Spec.Tolerations, &core.Taint{Key: core.TaintNodeUnreachable, Effect: core.TaintEffectNoExecute}))

	createNode(t, c, readyNode("extra", map[string]string{"zone": "b"}))
	testnode.Eventually(t, 30*time.Second, onNodes(t, c, ns, "test-node-0", "test-node-1", "extra"), "the new node gets its pod")

	require.NoError(t, nodes.Delete(ctx, "extra", nil))
	testnode.Eventually(t, 30*time.Second, onNodes(t, c, ns, "test-node-0", "test-node-1"), "the removed node's pod goes")

	testnode.Eventually(t, 30*time.Second, func() bool {
		ds, err := client.For[apps.DaemonSet](c, ns).Get(ctx, "agent")
		require.NoError(t, err)
		s := ds.Status
		return s.DesiredNumberScheduled == 2 && s.CurrentNumberScheduled == 2 && s.NumberReady == 2 &&
			s.NumberAvailable == 2 && s.UpdatedNumberScheduled == 2 && s.NumberMisscheduled == 0 && s.ObservedGeneration == ds.Generation
	}, "full status")

	// A nodeSelector that only the tainted-free "test-node-1" lacks moves nothing;
	// one nobody matches removes every pod.
	for {
		ds, err := client.For[apps.DaemonSet](c, ns).Get(ctx, "agent")
		require.NoError(t, err)
		ds.Spec.Template.Spec.NodeSelector = map[string]string{"role": "none"}
		if _, err = client.For[apps.DaemonSet](c, ns).Update(ctx, ds); err == nil {
			break
		}
		require.True(t, apierrors.IsConflict(err), "update: %v", err)
	}
	testnode.Eventually(t, 30*time.Second, onNodes(t, c, ns), "no eligible node, no pod")
}

// TestRollingUpdateKeepsMaxUnavailable changes the template and checks,
// over a watch of the whole rollout, that at most maxUnavailable (1) of
// the three nodes is ever without an available pod.
func TestRollingUpdateKeepsMaxUnavailable(t *testing.T) {
	c, _ := setup(t)
	ctx := context.Background()
	ns := "default"
	createNode(t, c, readyNode("extra", nil))
	// The agent does not run pods on "extra": mark them ready by hand.
	stopFake := fakeKubelet(t, c, ns, "extra")
	defer stopFake()
	_, err := client.For[apps.DaemonSet](c, ns).Create(ctx, daemonSet(ns))
	require.NoError(t, err)
	ready := func() bool {
		ds, err := client.For[apps.DaemonSet](c, ns).Get(ctx, "agent")
		return err == nil && ds.Status.NumberAvailable == 3 && ds.Status.UpdatedNumberScheduled == 3 && ds.Status.ObservedGeneration == ds.Generation
	}
	testnode.Eventually(t, 30*time.Second, ready, "three available pods")

	tracker := trackAvailability(t, c, ns)
	for {
		ds, err := client.For[apps.DaemonSet](c, ns).Get(ctx, "agent")
		require.NoError(t, err)
		ds.Spec.Template.Spec.Containers[0].Image = "orkit.local/hello:v2"
		if _, err = client.For[apps.DaemonSet](c, ns).Update(ctx, ds); err == nil {
			break
		}
		require.True(t, apierrors.IsConflict(err), "update: %v", err)
	}
	testnode.Eventually(t, 60*time.Second, ready, "rollout complete")
	for _, pods := range livePodsByNode(t, c, ns) {
		require.Len(t, pods, 1)
		assert.Equal(t, "orkit.local/hello:v2", pods[0].Spec.Containers[0].Image)
	}
	assert.GreaterOrEqual(t, tracker.min(), 2, "never more than maxUnavailable=1 node without an available pod")
}

// TestRollingUpdateWithSurge: maxSurge=1, maxUnavailable=0 — each node
// gets its new pod beside the old one, which goes once the new one is
// available; no node is ever without an available pod and at most one
// node runs two pods at any observed instant.
func TestRollingUpdateWithSurge(t *testing.T) {
	c, _ := setup(t)
	ctx := context.Background()
	ns := "default"
	createNode(t, c, readyNode("extra", nil))
	stopFake := fakeKubelet(t, c, ns, "extra")
	defer stopFake()
	ds := daemonSet(ns)
	one, zero := meta.FromInt(1), meta.FromInt(0)
	ds.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &apps.RollingUpdateDaemonSet{MaxSurge: &one, MaxUnavailable: &zero}}
	_, err := client.For[apps.DaemonSet](c, ns).Create(ctx, ds)
	require.NoError(t, err)
	ready := func() bool {
		ds, err := client.For[apps.DaemonSet](c, ns).Get(ctx, "agent")
		return err == nil && ds.Status.NumberAvailable == 3 && ds.Status.UpdatedNumberScheduled == 3 &&
			ds.Status.ObservedGeneration == ds.Generation && len(livePodsByNode(t, c, ns)) == 3 && onePerNode(t, c, ns)
	}
	testnode.Eventually(t, 30*time.Second, ready, "three available pods")
	tracker := trackAvailability(t, c, ns)
	for {
		ds, err := client.For[apps.DaemonSet](c, ns).Get(ctx, "agent")
		require.NoError(t, err)
		ds.Spec.Template.Spec.Containers[0].Image = "orkit.local/hello:v2"
		if _, err = client.For[apps.DaemonSet](c, ns).Update(ctx, ds); err == nil {
			break
		}
		require.True(t, apierrors.IsConflict(err), "update: %v", err)
	}
	testnode.Eventually(t, 60*time.Second, ready, "rollout complete")
	for _, pods := range livePodsByNode(t, c, ns) {
		require.Len(t, pods, 1)
		assert.Equal(t, "orkit.local/hello:v2", pods[0].Spec.Containers[0].Image)
	}
	assert.Equal(t, 3, tracker.min(), "maxUnavailable=0: every node kept an available pod")
	assert.Equal(t, 1, tracker.doubled(), "maxSurge=1: one node at a time ran two pods")
}

func onePerNode(t *testing.T, c *client.Client, ns string) bool {
	for _, pods := range livePodsByNode(t, c, ns) {
		if len(pods) != 1 {
			return false
		}
	}
	return true
}

// availability follows pods through a watch and remembers the fewest
// nodes with an available pod seen at any instant.
type availability struct {
	mu         sync.Mutex
	pods       map[string]*core.Pod
	lowest     int
	started    bool
	maxDoubled int // most nodes seen with two live pods at once
}

func trackAvailability(t *testing.T, c *client.Client, ns string) *availability {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := client.For[core.Pod](c, ns).Watch(ctx, client.ListOptions{})
	require.NoError(t, err)
	a := &availability{pods: map[string]*core.Pod{}, lowest: 1 << 30}
	go func() {
		for ev := range ch {
			a.mu.Lock()
			if ev.Type == meta.Deleted {
				delete(a.pods, ev.Object.Name)
			} else {
				a.pods[ev.Object.Name] = ev.Object
			}
			nodes := map[string]bool{}
			for _, p := range a.pods {
				if p.DeletionTimestamp == nil && isAvailable(p, 0, time.Now()) {
					nodes[p.Spec.NodeName] = true
				}
			}
			if len(nodes) == 3 {
				a.started = true // the initial ADDED events are in
			}
			if a.started {
				a.lowest = min(a.lowest, len(nodes))
			}
			perNode := map[string]int{}
			for _, p := range a.pods {
				if p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
					perNode[p.Spec.NodeName]++
				}
			}
			doubled := 0
			for _, n := range perNode {
				if n > 1 {
					doubled++
				}
			}
			a.maxDoubled = max(a.maxDoubled, doubled)
			a.mu.Unlock()
		}
	}()
	return a
}

func (a *availability) doubled() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.maxDoubled
}

func (a *availability) min() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lowest
}

// fakeKubelet reports pods bound to node Running and Ready and confirms
// their deletions, for a node the test agent does not serve.
func fakeKubelet(t *testing.T, c *client.Client, ns, node string) func() {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := client.For[core.Pod](c, ns).Watch(ctx, client.ListOptions{FieldSelector: "spec.nodeName=" + node})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			p := ev.Object
			switch {
			case ev.Type == meta.Deleted:
			case p.DeletionTimestamp != nil:
				zero := int64(0)
				_ = client.For[core.Pod](c, ns).Delete(ctx, p.Name, &meta.DeleteOptions{GracePeriodSeconds: &zero})
			case p.Status.Phase != core.PodRunning:
				p.Status.Phase = core.PodRunning
				p.Status.Conditions = []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue, LastTransitionTime: meta.Now()}}
				_, _ = client.For[core.Pod](c, ns).UpdateStatus(ctx, p)
			}
		}
	}()
	return func() { cancel(); <-done }
}

func TestShouldRun(t *testing.T) {
	ds := daemonSet("ns")
	withSelector := daemonSet("ns")
	withSelector.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	withAffinity := daemonSet("ns")
	withAffinity.Spec.Template.Spec.Affinity = &core.Affinity{NodeAffinity: &core.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &core.NodeSelector{NodeSelectorTerms: []core.NodeSelectorTerm{
			{MatchExpressions: []core.NodeSelectorRequirement{{Key: "zone", Operator: core.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
	tolerating := daemonSet("ns")
	tolerating.Spec.Template.Spec.Tolerations = []core.Toleration{{Key: "dedicated", Operator: core.TolerationOpExists}}
	taint := func(effect core.TaintEffect) core.Taint {
		return core.Taint{Key: "dedicated", Value: "x", Effect: effect}
	}
	tests := []struct {
		name string
		ds   *apps.DaemonSet
		node *core.Node
		want bool
	}{
		{"plain node", ds, readyNode("n", nil), true},
		{"selector matches", withSelector, readyNode("n", map[string]string{"disk": "ssd"}), true},
		{"selector misses", withSelector, readyNode("n", map[string]string{"disk": "hdd"}), false},
		{"affinity matches", withAffinity, readyNode("n", map[string]string{"zone": "a"}), true},
		{"affinity misses", withAffinity, readyNode("n", nil), false},
		{"NoSchedule taint", ds, readyNode("n", nil, taint(core.TaintEffectNoSchedule)), false},
		{"NoExecute taint", ds, readyNode("n", nil, taint(core.TaintEffectNoExecute)), false},
		{"PreferNoSchedule taint", ds, readyNode("n", nil, taint(core.TaintEffectPreferNoSchedule)), true},
		{"tolerated taint", tolerating, readyNode("n", nil, taint(core.TaintEffectNoExecute)), true},
		{"unreachable node", ds, readyNode("n", nil, core.Taint{Key: core.TaintNodeUnreachable, Effect: core.TaintEffectNoExecute}), true},
		{"cordoned node", ds, readyNode("n", nil, core.Taint{Key: core.TaintNodeUnschedulable, Effect: core.TaintEffectNoSchedule}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, ShouldRun(tt.ds, tt.node)) })
	}
	run, keep := Placement(ds, readyNode("n", nil, taint(core.TaintEffectNoSchedule)))
	assert.Equal(t, []bool{false, true}, []bool{run, keep}, "NoSchedule: no new pod, the running one stays")
	run, keep = Placement(ds, readyNode("n", nil, taint(core.TaintEffectNoExecute)))
	assert.Equal(t, []bool{false, false}, []bool{run, keep}, "NoExecute: the running one goes too")
	run, keep = Placement(withSelector, readyNode("n", nil))
	assert.Equal(t, []bool{false, false}, []bool{run, keep}, "no longer selected: it goes")
}

func TestRollingUpdateChoice(t *testing.T) {
	ds := daemonSet("ns")
	two := meta.FromInt(2)
	pod := func(name, node, hash string, ready bool) *core.Pod {
		p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{apps.DefaultDaemonSetUniqueLabelKey: hash}},
			Spec: core.PodSpec{NodeName: node}}
		if ready {
			p.Status.Phase = core.PodRunning
			p.Status.Conditions = []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue}}
		}
		return p
	}
	byNode := map[string][]*core.Pod{
		"a": {pod("a", "a", "old", true)}, "b": {pod("b", "b", "old", true)},
		"c": {pod("c", "c", "old", false)}, "d": {pod("d", "d", "new", true)},
	}
	names := func(ps []*core.Pod) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	eligible := []string{"a", "b", "c", "d"}
	assert.Equal(t, []string{"c"}, names(rollingUpdate(ds, byNode, eligible, "new")), "the unavailable old pod goes; the budget is spent")
	ds.Spec.UpdateStrategy.RollingUpdate = &apps.RollingUpdateDaemonSet{MaxUnavailable: &two}
	assert.Len(t, rollingUpdate(ds, byNode, eligible, "new"), 2, "one unavailable, one more allowed")
	assert.Len(t, rollingUpdate(ds, byNode, append(eligible, "e"), "new"), 1, "a node with no pod counts as unavailable")
}

// TestAdoptsOrphan: a pod the selector matches, already on a node, is
// adopted instead of getting a twin.
func TestAdoptsOrphan(t *testing.T) {
	c, _ := setup(t)
	logPodEvents(t, c)
	ctx := context.Background()
	ns := "default"
	ds := daemonSet(ns)
	// OnDelete: the adopted pod carries no revision hash, and a rolling
	// update would replace it.
	ds.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.OnDeleteDaemonSetStrategyType}
	orphan, err := client.For[core.Pod](c, ns).Create(ctx, &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: "hand-made", Labels: map[string]string{"app": "agent"}},
		Spec:       core.PodSpec{NodeName: "test-node-0", Containers: ds.Spec.Template.Spec.Containers},
	})
	require.NoError(t, err)
	testnode.Eventually(t, 10*time.Second, func() bool {
		p, err := client.For[core.Pod](c, ns).Get(ctx, "hand-made")
		return err == nil && core.IsPodReady(p)
	}, "the orphan running")
	created, err := client.For[apps.DaemonSet](c, ns).Create(ctx, ds)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, onNodes(t, c, ns, "test-node-0", "test-node-1"), "one pod per node")
	pods := livePodsByNode(t, c, ns)["test-node-0"]
	require.Len(t, pods, 1)
	assert.Equal(t, orphan.UID, pods[0].UID, "adopted, no twin")
	testnode.Eventually(t, 10*time.Second, func() bool {
		p, err := client.For[core.Pod](c, ns).Get(ctx, "hand-made")
		if err != nil {
			return false
		}
		ref := meta.ControllerOf(&p.ObjectMeta)
		return ref != nil && ref.UID == created.UID
	}, "controller reference set")
}
