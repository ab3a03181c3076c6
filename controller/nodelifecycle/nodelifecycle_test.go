package nodelifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/internal/testnode"
)

func i64(v int64) *int64 { return &v }

func TestEvictionTime(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	added := meta.NewTime(now.Add(-10 * time.Second))
	unreachable := core.Taint{Key: core.TaintNodeUnreachable, Effect: core.TaintEffectNoExecute, TimeAdded: &added}
	custom := core.Taint{Key: "maintenance", Effect: core.TaintEffectNoExecute, TimeAdded: &added}
	noSchedule := core.Taint{Key: "dedicated", Effect: core.TaintEffectNoSchedule}
	pod := func(tol ...core.Toleration) *core.Pod { return &core.Pod{Spec: core.PodSpec{Tolerations: tol}} }
	tests := []struct {
		name   string
		pod    *core.Pod
		taints []core.Taint
		want   time.Duration // after the taint was added
		evict  bool
	}{
		{"no taints", pod(), nil, 0, false},
		{"NoSchedule only", pod(), []core.Taint{noSchedule}, 0, false},
		{"unreachable, no toleration: default", pod(), []core.Taint{unreachable}, 300 * time.Second, true},
		{"custom taint, no toleration: at once", pod(), []core.Taint{custom}, 0, true},
		{"toleration with seconds", pod(core.Toleration{Key: core.TaintNodeUnreachable, Operator: core.TolerationOpExists,
			Effect: core.TaintEffectNoExecute, TolerationSeconds: i64(30)}), []core.Taint{unreachable}, 30 * time.Second, true},
		{"smallest of two tolerations", pod(
			core.Toleration{Operator: core.TolerationOpExists, TolerationSeconds: i64(60)},
			core.Toleration{Key: core.TaintNodeUnreachable, Operator: core.TolerationOpExists, TolerationSeconds: i64(5)}),
			[]core.Taint{unreachable}, 5 * time.Second, true},
		{"toleration forever", pod(core.Toleration{Key: core.TaintNodeUnreachable, Operator: core.TolerationOpExists}),
			[]core.Taint{unreachable}, 0, false},
		{"negative seconds count as zero", pod(core.Toleration{Operator: core.TolerationOpExists, TolerationSeconds: i64(-5)}),
			[]core.Taint{unreachable}, 0, true},
		{"earliest of two taints", pod(), []core.Taint{unreachable, custom}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, ok := EvictionTime(tt.pod, tt.taints, DefaultTolerationSeconds, now)
			require.Equal(t, tt.evict, ok)
			if ok {
				assert.Equal(t, added.Add(tt.want), at)
			}
		})
	}
}

func TestWithTaints(t *testing.T) {
	now := time.Now()
	nrExec := taint(core.TaintNodeNotReady, core.TaintEffectNoExecute)
	nrSched := taint(core.TaintNodeNotReady, core.TaintEffectNoSchedule)
	urExec := taint(core.TaintNodeUnreachable, core.TaintEffectNoExecute)
	urSched := taint(core.TaintNodeUnreachable, core.TaintEffectNoSchedule)
	other := core.Taint{Key: "x", Effect: core.TaintEffectNoSchedule}
	keys := func(ts []core.Taint) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ToString())
		}
		return out
	}
	out, changed := withTaints([]core.Taint{nrExec, nrSched, other}, now, []core.Taint{urSched, urExec})
	require.True(t, changed)
	assert.ElementsMatch(t, keys([]core.Taint{other, urSched, urExec}), keys(out), "not-ready replaced by unreachable; others kept")
	for _, tt := range out {
		if conditionTaint(&tt) {
			require.NotNil(t, tt.TimeAdded)
		}
	}
	again, changed := withTaints(out, now.Add(time.Minute), []core.Taint{urExec, urSched})
	assert.False(t, changed, "idempotent")
	assert.Equal(t, out, again, "timeAdded kept")
	out, changed = withTaints(out, now, []core.Taint{urSched})
	assert.True(t, changed)
	assert.ElementsMatch(t, keys([]core.Taint{other, urSched}), keys(out), "full disruption keeps NoSchedule only")
	out, changed = withTaints(out, now, nil)
	assert.True(t, changed)
	assert.Equal(t, []core.Taint{other}, out)
}

// agent runs a testnode agent that the test can stop (its node then
// stops heartbeating).
func agent(t *testing.T, c *client.Client, prefix string) (stop func()) {
	t.Helper()
	a, err := testnode.New(c, testnode.Config{Nodes: 1, NamePrefix: prefix, Bind: true,
		HeartbeatInterval: 200 * time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	<-a.Ready()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// TestEvictionAndReplacement stops the heartbeats of the node holding
// most of a ReplicaSet's pods and checks that the node turns Unknown and
// tainted, that its pods are evicted after the toleration and replaced
// on the other node, and that a pod tolerating the taint stays.
func TestEvictionAndReplacement(t *testing.T) {
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	stops := map[string]func(){"a-0": agent(t, admin, "a-"), "b-0": agent(t, admin, "b-")}

	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	nl, err := New(m, Config{GracePeriod: 2 * time.Second, DefaultTolerationSeconds: time.Second,
		MonitorPeriod: 500 * time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(nl))
	rs, err := replicaset.New(m, replicaset.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(rs))
	testnode.RunManager(t, m)

	labels := map[string]string{"app": "web"}
	replicas := int32(4)
	_, err = client.For[apps.ReplicaSet](admin, "default").Create(ctx, &apps.ReplicaSet{
		ObjectMeta: meta.ObjectMeta{Name: "web"},
		Spec: apps.ReplicaSetSpec{Replicas: &replicas, Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labels},
				Spec: core.PodSpec{Containers: []core.Container{{Name: "web", Image: "orkit.local/hello:v1"}}}}},
	})
	require.NoError(t, err)
	running := func() map[string]int {
		l, err := client.For[core.Pod](admin, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
		require.NoError(t, err)
		out := map[string]int{}
		for _, p := range l.Items {
			if p.DeletionTimestamp == nil && p.Status.Phase == core.PodRunning && core.IsPodReady(&p) {
				out[p.Spec.NodeName]++
			}
		}
		return out
	}
	testnode.Eventually(t, 30*time.Second, func() bool { r := running(); return r["a-0"]+r["b-0"] == 4 }, "four running pods")
	doomed, survivor := "a-0", "b-0"
	if r := running(); r["b-0"] > r["a-0"] {
		doomed, survivor = survivor, doomed
	}
	tolerant, err := client.For[core.Pod](admin, "default").Create(ctx, &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: "tolerant"},
		Spec: core.PodSpec{NodeName: doomed, Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}},
			Tolerations: []core.Toleration{{Key: core.TaintNodeUnreachable, Operator: core.TolerationOpExists, Effect: core.TaintEffectNoExecute}}},
	})
	require.NoError(t, err)

	stops[doomed]()
	testnode.Eventually(t, 20*time.Second, func() bool {
		n, err := client.For[core.Node](admin, "").Get(ctx, doomed)
		require.NoError(t, err)
		_, ready := core.GetNodeCondition(&n.Status, core.NodeReady)
		tainted := false
		for _, tt := range n.Spec.Taints {
			tainted = tainted || (tt.Key == core.TaintNodeUnreachable && tt.Effect == core.TaintEffectNoExecute)
		}
		return ready != nil && ready.Status == meta.ConditionUnknown && tainted
	}, "node %s Ready=Unknown and tainted unreachable", doomed)
	testnode.Eventually(t, 20*time.Second, func() bool { r := running(); return r[survivor] == 4 && r[doomed] == 0 },
		"pods evicted from %s and replaced on %s", doomed, survivor)

	p, err := client.For[core.Pod](admin, "default").Get(ctx, tolerant.Name)
	require.NoError(t, err)
	assert.Nil(t, p.DeletionTimestamp, "a pod tolerating the taint forever stays")
	assert.False(t, core.IsPodReady(p), "but it is no longer Ready")
	n, err := client.For[core.Node](admin, "").Get(ctx, survivor)
	require.NoError(t, err)
	assert.Empty(t, n.Spec.Taints, "the healthy node is not tainted")
}

func TestConfig(t *testing.T) {
	cl := testnode.StartCluster(t)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.AdminKubeconfig)})
	require.NoError(t, err)
	_, err = New(m, Config{DefaultTolerationSeconds: -1})
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, err = New(nil, Config{})
	require.ErrorIs(t, err, ErrInvalidConfig)
}

// TestGraceRunsFromObservation: a heartbeat from long ago, seen for the
// first time (a controller that just started), counts from when it was
// seen; a heartbeat that does not change ages by the controller's clock.
func TestGraceRunsFromObservation(t *testing.T) {
	c := &Controller{seen: map[string]heartbeat{}}
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	stale := start.Add(-time.Hour)
	assert.Equal(t, start, c.observe("n", stale, start), "first sight starts the grace period")
	assert.Equal(t, start, c.observe("n", stale, start.Add(30*time.Second)), "an unchanged heartbeat keeps aging")
	later := start.Add(time.Minute)
	assert.Equal(t, later, c.observe("n", stale.Add(time.Second), later), "a new heartbeat restarts it, whatever the node's clock says")
	assert.Equal(t, later, c.observe("n", stale, later.Add(time.Second)), "an older report changes nothing")
	c.forget("n")
	assert.Equal(t, later.Add(2*time.Second), c.observe("n", stale, later.Add(2*time.Second)))
}

func TestFullDisruption(t *testing.T) {
	node := func(name, zone string, ready meta.ConditionStatus) *core.Node {
		n := &core.Node{ObjectMeta: meta.ObjectMeta{Name: name}}
		if zone != "" {
			n.Labels = map[string]string{core.LabelTopologyZone: zone}
		}
		if ready != "" {
			n.Status.Conditions = []core.NodeCondition{{Type: core.NodeReady, Status: ready}}
		}
		return n
	}
	down := node("down", "", meta.ConditionUnknown)
	tests := []struct {
		name  string
		nodes []*core.Node
		node  *core.Node
		want  bool
	}{
		{"single node", []*core.Node{down}, down, true},
		{"another node ready", []*core.Node{down, node("up", "", meta.ConditionTrue)}, down, false},
		{"every other node down", []*core.Node{down, node("b", "", meta.ConditionFalse), node("c", "", "")}, down, true},
		{"ready node in another zone", []*core.Node{node("a", "z1", meta.ConditionUnknown), node("b", "z2", meta.ConditionTrue)},
			node("a", "z1", meta.ConditionUnknown), true},
		{"ready node in the same zone", []*core.Node{node("a", "z1", meta.ConditionUnknown), node("b", "z1", meta.ConditionTrue)},
			node("a", "z1", meta.ConditionUnknown), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, FullDisruption(tt.nodes, tt.node)) })
	}
}
