package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/scheduler/framework"
)

// recorder is a plugin with every hook; it records calls and fails where told.
type recorder struct {
	name    string
	calls   *[]string
	fail    string // hook that fails
	permitD time.Duration
}

func (r recorder) Name() string { return r.name }

func (r recorder) status(hook string) *framework.Status {
	*r.calls = append(*r.calls, r.name+"."+hook)
	if r.fail == hook {
		return framework.NewStatus(framework.Unschedulable, r.name+" says no")
	}
	return nil
}

func (r recorder) Reserve(_ context.Context, _ *framework.CycleState, _ *core.Pod, _ string) *framework.Status {
	return r.status("Reserve")
}

func (r recorder) Unreserve(context.Context, *framework.CycleState, *core.Pod, string) {
	*r.calls = append(*r.calls, r.name+".Unreserve")
}

func (r recorder) Permit(context.Context, *framework.CycleState, *core.Pod, string) (*framework.Status, time.Duration) {
	if r.permitD > 0 {
		return framework.NewStatus(framework.Wait), r.permitD
	}
	return r.status("Permit"), 0
}

func (r recorder) PostFilter(context.Context, *framework.CycleState, *core.Pod, framework.NodeToStatus) (string, *framework.Status) {
	if s := r.status("PostFilter"); s != nil {
		return "", s
	}
	return "n1", nil
}

func (r recorder) Bind(context.Context, *framework.CycleState, *core.Pod, string) *framework.Status {
	if r.fail == "Bind" {
		return framework.NewStatus(framework.Skip)
	}
	return r.status("Bind")
}

func (r recorder) PreBind(context.Context, *framework.CycleState, *core.Pod, string) *framework.Status {
	if r.fail == "PreBindSkip" {
		*r.calls = append(*r.calls, r.name+".PreBind")
		return framework.NewStatus(framework.Skip)
	}
	return r.status("PreBind")
}

// TestRunPreBind: every PreBind runs in order; Skip counts as success; the
// first failure stops the rest and names its plugin.
func TestRunPreBind(t *testing.T) {
	var calls []string
	a := recorder{name: "A", calls: &calls, fail: "PreBindSkip"}
	b := recorder{name: "B", calls: &calls}
	c := recorder{name: "C", calls: &calls, fail: "PreBind"}
	d := recorder{name: "D", calls: &calls}
	fwk, err := framework.New(framework.Profile{Plugins: []framework.Plugin{a, b}})
	require.NoError(t, err)
	p := pod("p", "", "")
	assert.True(t, fwk.RunPreBind(ctx, nil, p, "n").IsSuccess())
	assert.Equal(t, []string{"A.PreBind", "B.PreBind"}, calls)

	calls = nil
	fwk, err = framework.New(framework.Profile{Plugins: []framework.Plugin{b, c, d}})
	require.NoError(t, err)
	s := fwk.RunPreBind(ctx, nil, p, "n")
	assert.Equal(t, framework.Unschedulable, s.Code())
	assert.Equal(t, "C", s.Plugin())
	assert.Equal(t, []string{"B.PreBind", "C.PreBind"}, calls, "D is not called after C failed")
}

func TestHookOrder(t *testing.T) {
	var calls []string
	a := recorder{name: "A", calls: &calls}
	b := recorder{name: "B", calls: &calls, fail: "Reserve"}
	fwk, err := framework.New(framework.Profile{Plugins: []framework.Plugin{a, b}})
	require.NoError(t, err)
	p := pod("p", "", "")
	s := fwk.RunReserve(ctx, nil, p, "n")
	assert.Equal(t, "B", s.Plugin())
	assert.Equal(t, []string{"A.Reserve", "B.Reserve", "B.Unreserve", "A.Unreserve"}, calls, "unreserve in reverse")

	calls = nil
	node, s := fwk.RunPostFilter(ctx, nil, p, nil)
	assert.Nil(t, s)
	assert.Equal(t, "n1", node)

	calls = nil
	b.fail = "Bind" // skips: A binds
	fwk, err = framework.New(framework.Profile{Plugins: []framework.Plugin{b, a}})
	require.NoError(t, err)
	assert.Nil(t, fwk.RunBind(ctx, nil, p, "n"))
	assert.Equal(t, []string{"A.Bind"}, calls)

	calls = nil
	c := recorder{name: "C", calls: &calls, fail: "Permit"}
	fwk, err = framework.New(framework.Profile{Plugins: []framework.Plugin{c}})
	require.NoError(t, err)
	s, _ = fwk.RunPermit(ctx, nil, p, "n")
	assert.Equal(t, "C", s.Plugin())
	fwk.RunUnreserve(ctx, nil, p, "n")
	assert.Equal(t, []string{"C.Permit", "C.Unreserve"}, calls)
}

func TestPermitRejectAndTimeout(t *testing.T) {
	var calls []string
	w := recorder{name: "W", calls: &calls, permitD: 50 * time.Millisecond}
	fwk, err := framework.New(framework.Profile{Plugins: []framework.Plugin{w}})
	require.NoError(t, err)
	p := pod("p", "", "")
	s, d := fwk.RunPermit(ctx, nil, p, "n")
	require.Equal(t, framework.Wait, s.Code())
	s = fwk.WaitOnPermit(ctx, p, d)
	assert.Equal(t, framework.Unschedulable, s.Code())
	assert.Contains(t, s.Message(), "timeout")
	assert.False(t, fwk.Allow(p.UID), "no longer waiting")

	q := pod("q", "", "")
	_, d = fwk.RunPermit(ctx, nil, q, "n")
	done := make(chan *framework.Status)
	go func() { done <- fwk.WaitOnPermit(ctx, q, time.Minute) }()
	assert.True(t, fwk.Reject(q.UID, "quota exhausted"))
	s = <-done
	assert.Equal(t, "quota exhausted", s.Message())
	assert.Nil(t, fwk.WaitOnPermit(ctx, pod("never", "", ""), d), "a pod not waiting passes")

	cctx, cancel := context.WithCancel(ctx)
	r := pod("r", "", "")
	_, _ = fwk.RunPermit(ctx, nil, r, "n")
	cancel()
	assert.Equal(t, framework.Error, fwk.WaitOnPermit(cctx, r, time.Minute).Code())
}

type skipper struct{ score int64 }

func (skipper) Name() string { return "Skipper" }

func (skipper) PreScore(context.Context, *framework.CycleState, *core.Pod, []*framework.NodeInfo) *framework.Status {
	return framework.NewStatus(framework.Skip)
}

func (s skipper) Score(context.Context, *framework.CycleState, *core.Pod, *framework.NodeInfo) (int64, *framework.Status) {
	return s.score, nil
}

func TestPreScoreSkip(t *testing.T) {
	fwk, err := framework.New(framework.Profile{Priorities: []framework.WeightedPriority{
		{Priority: skipper{score: 1000}, Weight: 1}, {Priority: scoreFunc{}, Weight: 1}}})
	require.NoError(t, err)
	state := framework.NewCycleState()
	nodes := []*framework.NodeInfo{framework.NewNodeInfo(node("a", "1", "1"))}
	require.Nil(t, fwk.RunPreScore(ctx, state, pod("p", "", ""), nodes))
	totals, s := fwk.RunScore(ctx, state, pod("p", "", ""), nodes, 1)
	require.Nil(t, s, "the out-of-range skipper was skipped")
	assert.Equal(t, []int64{10}, totals)
}

func TestNormalize(t *testing.T) {
	sc := []framework.NodeScore{{Score: 5}, {Score: 10}, {Score: 0}}
	framework.DefaultNormalizeScore(sc, false)
	assert.Equal(t, []int64{50, 100, 0}, []int64{sc[0].Score, sc[1].Score, sc[2].Score})
	sc = []framework.NodeScore{{Score: 5}, {Score: 10}, {Score: 0}}
	framework.DefaultNormalizeScore(sc, true)
	assert.Equal(t, []int64{50, 0, 100}, []int64{sc[0].Score, sc[1].Score, sc[2].Score})
	sc = []framework.NodeScore{{Score: 0}, {Score: 0}}
	framework.DefaultNormalizeScore(sc, true)
	assert.Equal(t, []int64{100, 100}, []int64{sc[0].Score, sc[1].Score})
}

func TestResourceArithmetic(t *testing.T) {
	r := framework.NewResource(core.ResourceList{
		core.ResourceCPU: resource.MustParse("1500m"), core.ResourceMemory: resource.MustParse("1Ki"),
		core.ResourceEphemeralStorage: resource.MustParse("2"), "example.com/gpu": resource.MustParse("2"),
	})
	c := r.Clone()
	r.Add(&c)
	assert.Equal(t, int64(3000), r.Get(core.ResourceCPU))
	assert.Equal(t, int64(2048), r.Get(core.ResourceMemory))
	assert.Equal(t, int64(4), r.Get(core.ResourceEphemeralStorage))
	assert.Equal(t, int64(4), r.Get("example.com/gpu"))
	assert.Equal(t, int64(2), c.Get("example.com/gpu"), "clones own their scalar map")
	r.Sub(&c)
	r.Sub(&c)
	assert.True(t, r.IsZero())
	assert.False(t, c.IsZero())
}

func TestHostPortsAndImages(t *testing.T) {
	p := pod("p", "n", "")
	p.Spec.InitContainers = []core.Container{{Name: "i", Ports: []core.ContainerPort{{HostPort: 53, Protocol: core.ProtocolUDP}}}}
	p.Spec.Containers[0].Ports = []core.ContainerPort{{HostPort: 80, HostIP: "::"}, {ContainerPort: 9090}}
	assert.Equal(t, []framework.HostPort{{IP: "0.0.0.0", Protocol: core.ProtocolUDP, Port: 53}, {IP: "0.0.0.0", Protocol: core.ProtocolTCP, Port: 80}},
		framework.PodHostPorts(p))
	n := node("n", "1", "1Gi")
	n.Status.Images = []core.ContainerImage{{Names: []string{"reg/app", "reg/app@sha256:abc"}, SizeBytes: 7}}
	ni := framework.NewNodeInfo(n, framework.NewPodInfo(p))
	assert.Equal(t, map[string]int64{"reg/app:latest": 7, "reg/app@sha256:abc": 7}, ni.ImageSizes)
	assert.False(t, ni.PortsFree([]framework.HostPort{{IP: "10.0.0.1", Protocol: core.ProtocolTCP, Port: 80}}))
	require.NoError(t, ni.RemovePod(p))
	assert.Empty(t, ni.UsedPorts)
	snap := framework.NewSnapshot([]*core.Node{n}, nil)
	assert.Equal(t, 1, snap.ImageNodeCount("reg/app:latest"))
	assert.Equal(t, "nginx:latest", framework.NormalizeImage("nginx"))
	assert.Equal(t, "localhost:5000/x:latest", framework.NormalizeImage("localhost:5000/x"))
}

func TestAffinityTerms(t *testing.T) {
	p := pod("p", "", "")
	p.Namespace = "a"
	sel := &meta.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	p.Spec.Affinity = &core.Affinity{PodAntiAffinity: &core.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []core.PodAffinityTerm{
			{TopologyKey: "zone", LabelSelector: sel},
			{TopologyKey: "zone", LabelSelector: sel, Namespaces: []string{"b"}},
			{TopologyKey: "zone", LabelSelector: sel, NamespaceSelector: &meta.LabelSelector{}},
			{TopologyKey: "zone", LabelSelector: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "x", Operator: "Nope"}}}},
		}}}
	pi := framework.NewPodInfo(p)
	require.Error(t, pi.ParseErr)
	require.Len(t, pi.RequiredAntiAffinity, 3)
	db := func(ns string) *core.Pod {
		q := pod("db", "", "")
		q.Namespace, q.Labels = ns, map[string]string{"app": "db"}
		return q
	}
	assert.True(t, pi.RequiredAntiAffinity[0].Matches(db("a"), nil))
	assert.False(t, pi.RequiredAntiAffinity[0].Matches(db("b"), nil), "own namespace by default")
	assert.True(t, pi.RequiredAntiAffinity[1].Matches(db("b"), nil))
	assert.True(t, pi.RequiredAntiAffinity[2].Matches(db("zzz"), nil), "namespaceSelector: all")
	assert.True(t, pi.HasAffinity())
}

func TestAffinityNamespaceSelector(t *testing.T) {
	nss := framework.StaticNamespaces{"prod-a": {"env": "prod"}, "prod-b": {"env": "prod"}, "dev": {"env": "dev"}}
	db := func(ns string) *core.Pod {
		q := pod("db", "", "")
		q.Namespace, q.Labels = ns, map[string]string{"app": "db"}
		return q
	}
	sel := &meta.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	prod := &meta.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	tests := []struct {
		name  string
		term  core.PodAffinityTerm
		match map[string]bool // namespace of the db pod → selected
	}{
		{"selector only", core.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel, NamespaceSelector: prod},
			map[string]bool{"prod-a": true, "prod-b": true, "dev": false, "own": false}},
		{"selector and names are a union", core.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel, NamespaceSelector: prod, Namespaces: []string{"dev"}},
			map[string]bool{"prod-a": true, "dev": true, "own": false}},
		{"empty selector is every namespace", core.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel, NamespaceSelector: &meta.LabelSelector{}},
			map[string]bool{"prod-a": true, "dev": true, "own": true, "unknown": true}},
		{"no selector, no names: own namespace", core.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel},
			map[string]bool{"own": true, "prod-a": false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			term, err := framework.NewAffinityTerm("own", &tc.term)
			require.NoError(t, err)
			resolved := term.Resolved(nss)
			for ns, want := range tc.match {
				// An existing pod's term is matched with the namespace's labels;
				// the pod being scheduled has its terms resolved to names.
				assert.Equal(t, want, term.Matches(db(ns), nss.Labels(ns)), "by labels: %s", ns)
				assert.Equal(t, want, resolved.Matches(db(ns), nil), "resolved: %s", ns)
			}
		})
	}
	_, err := framework.NewAffinityTerm("own", &core.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel,
		NamespaceSelector: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "env", Operator: "Nope"}}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "namespaceSelector")
}
