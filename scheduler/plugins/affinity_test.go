package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/scheduler/framework"
)

func term(key string, app string) core.PodAffinityTerm {
	return core.PodAffinityTerm{TopologyKey: key, LabelSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": app}}}
}

func withAffinity(p *core.Pod, aff, anti []core.PodAffinityTerm) *core.Pod {
	p.Spec.Affinity = &core.Affinity{}
	if aff != nil {
		p.Spec.Affinity.PodAffinity = &core.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: aff}
	}
	if anti != nil {
		p.Spec.Affinity.PodAntiAffinity = &core.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: anti}
	}
	return p
}

// zoned returns nodes a1, a2 in zone a and b1 in zone b.
func zoned() []*core.Node {
	return []*core.Node{
		node("a1", nil, map[string]string{"zone": "a", "host": "a1"}),
		node("a2", nil, map[string]string{"zone": "a", "host": "a2"}),
		node("b1", nil, map[string]string{"zone": "b", "host": "b1"}),
		node("nolabel", nil, map[string]string{}),
	}
}

// filterAll returns, per node name, the message of filtering p.
func filterAll(t *testing.T, pl framework.Predicate, p *core.Pod, nodes []*core.Node, pods []*core.Pod) map[string]string {
	t.Helper()
	snap := framework.NewSnapshot(nodes, pods)
	out := map[string]string{}
	for _, ni := range snap.List() {
		out[ni.Name()] = msg(runFilter(pl, p, ni, snap))
	}
	return out
}

func TestInterPodAffinityFilter(t *testing.T) {
	const (
		aff      = "UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules"
		anti     = "Unschedulable: node(s) didn't match pod anti-affinity rules"
		existing = "Unschedulable: node(s) didn't satisfy existing pods anti-affinity rules"
	)
	db := onNode(labelled(pod("db", nil), "app", "db"), "a1")
	tests := []struct {
		name string
		pod  *core.Pod
		pods []*core.Pod
		want map[string]string
	}{
		{"no terms", pod("p", nil), []*core.Pod{db}, map[string]string{"a1": "", "a2": "", "b1": "", "nolabel": ""}},
		{"affinity to the db's zone", withAffinity(pod("p", nil), []core.PodAffinityTerm{term("zone", "db")}, nil), []*core.Pod{db},
			map[string]string{"a1": "", "a2": "", "b1": aff, "nolabel": aff}},
		{"affinity by host", withAffinity(pod("p", nil), []core.PodAffinityTerm{term("host", "db")}, nil), []*core.Pod{db},
			map[string]string{"a1": "", "a2": aff, "b1": aff, "nolabel": aff}},
		{"affinity with no match anywhere", withAffinity(pod("p", nil), []core.PodAffinityTerm{term("zone", "cache")}, nil), []*core.Pod{db},
			map[string]string{"a1": aff, "a2": aff, "b1": aff, "nolabel": aff}},
		{"self affinity starts a group", withAffinity(labelled(pod("p", nil), "app", "web"), []core.PodAffinityTerm{term("zone", "web")}, nil), []*core.Pod{db},
			map[string]string{"a1": "", "a2": "", "b1": "", "nolabel": aff}},
		{"anti-affinity to the db's zone", withAffinity(pod("p", nil), nil, []core.PodAffinityTerm{term("zone", "db")}), []*core.Pod{db},
			map[string]string{"a1": anti, "a2": anti, "b1": "", "nolabel": ""}},
		{"existing pod's anti-affinity", labelled(pod("p", nil), "app", "web"),
			[]*core.Pod{withAffinity(onNode(labelled(pod("lonely", nil), "app", "x"), "b1"), nil, []core.PodAffinityTerm{term("zone", "web")})},
			map[string]string{"a1": "", "a2": "", "b1": existing, "nolabel": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, filterAll(t, InterPodAffinity{}, tt.pod, zoned(), tt.pods))
		})
	}
	bad := withAffinity(pod("bad", nil), []core.PodAffinityTerm{{TopologyKey: "zone", LabelSelector: &meta.LabelSelector{
		MatchExpressions: []meta.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}}}, nil)
	s := InterPodAffinity{}.PreFilter(ctx, framework.NewCycleState(), bad)
	assert.Equal(t, framework.UnschedulableAndUnresolvable, s.Code())
	assert.Contains(t, s.Message(), ReasonInvalidAffinity)
}

func TestInterPodAffinityScore(t *testing.T) {
	p := pod("p", nil)
	p.Spec.Affinity = &core.Affinity{
		PodAffinity: &core.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []core.WeightedPodAffinityTerm{
			{Weight: 10, PodAffinityTerm: term("zone", "db")}}},
		PodAntiAffinity: &core.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []core.WeightedPodAffinityTerm{
			{Weight: 5, PodAffinityTerm: term("host", "db")}}},
	}
	db := onNode(labelled(pod("db", nil), "app", "db"), "a1")
	snap := framework.NewSnapshot(zoned(), []*core.Pod{db})
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	require.Nil(t, InterPodAffinity{}.PreScore(ctx, state, p, snap.List()))
	var scores []framework.NodeScore
	for _, ni := range snap.List() {
		v, s := InterPodAffinity{}.Score(ctx, state, p, ni)
		require.Nil(t, s)
		scores = append(scores, framework.NodeScore{Name: ni.Name(), Score: v})
	}
	assert.Equal(t, []int64{5, 10, 0, 0}, []int64{scores[0].Score, scores[1].Score, scores[2].Score, scores[3].Score},
		"a1: +10 zone -5 host; a2: +10 zone")
	InterPodAffinity{}.NormalizeScore(ctx, state, p, scores)
	assert.Equal(t, []int64{50, 100, 0, 0}, []int64{scores[0].Score, scores[1].Score, scores[2].Score, scores[3].Score})

	empty := framework.NewSnapshot(zoned(), nil)
	state.SetSnapshot(empty)
	assert.True(t, InterPodAffinity{}.PreScore(ctx, state, pod("plain", nil), nil).IsSkip())
}

func spreadPod(name string, maxSkew int32, key, when string) *core.Pod {
	p := labelled(pod(name, nil), "app", "web")
	p.Spec.TopologySpreadConstraints = []core.TopologySpreadConstraint{{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	return p
}

func TestPodTopologySpreadFilter(t *testing.T) {
	const (
		skew  = "Unschedulable: node(s) didn't match pod topology spread constraints"
		label = "UnschedulableAndUnresolvable: node(s) didn't match pod topology spread constraints (missing required label)"
	)
	web := func(name, node string) *core.Pod { return onNode(labelled(pod(name, nil), "app", "web"), node) }
	tests := []struct {
		name string
		pod  *core.Pod
		pods []*core.Pod
		want map[string]string
	}{
		{"empty cluster", spreadPod("p", 1, "zone", core.DoNotSchedule), nil,
			map[string]string{"a1": "", "a2": "", "b1": "", "nolabel": label}},
		{"zone a ahead by one", spreadPod("p", 1, "zone", core.DoNotSchedule), []*core.Pod{web("w1", "a1")},
			map[string]string{"a1": skew, "a2": skew, "b1": "", "nolabel": label}},
		{"maxSkew 2 allows it", spreadPod("p", 2, "zone", core.DoNotSchedule), []*core.Pod{web("w1", "a1")},
			map[string]string{"a1": "", "a2": "", "b1": "", "nolabel": label}},
		{"balanced zones", spreadPod("p", 1, "zone", core.DoNotSchedule), []*core.Pod{web("w1", "a1"), web("w2", "b1")},
			map[string]string{"a1": "", "a2": "", "b1": "", "nolabel": label}},
		{"by host", spreadPod("p", 1, "host", core.DoNotSchedule), []*core.Pod{web("w1", "a1"), web("w2", "b1")},
			map[string]string{"a1": skew, "a2": "", "b1": skew, "nolabel": label}},
		{"other namespaces and labels ignored", spreadPod("p", 1, "zone", core.DoNotSchedule),
			[]*core.Pod{onNode(labelled(pod("x", nil), "app", "db"), "a1")},
			map[string]string{"a1": "", "a2": "", "b1": "", "nolabel": label}},
		{"ScheduleAnyway does not filter", spreadPod("p", 1, "zone", core.ScheduleAnyway), []*core.Pod{web("w1", "a1")},
			map[string]string{"a1": "", "a2": "", "b1": "", "nolabel": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, filterAll(t, PodTopologySpread{}, tt.pod, zoned(), tt.pods))
		})
	}
}

func TestPodTopologySpreadScore(t *testing.T) {
	web := func(name, node string) *core.Pod { return onNode(labelled(pod(name, nil), "app", "web"), node) }
	p := spreadPod("p", 1, "zone", core.ScheduleAnyway)
	nodes := zoned()[:3]
	snap := framework.NewSnapshot(nodes, []*core.Pod{web("w1", "a1"), web("w2", "a2")})
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	require.Nil(t, PodTopologySpread{}.PreScore(ctx, state, p, snap.List()))
	var scores []framework.NodeScore
	for _, ni := range snap.List() {
		v, _ := PodTopologySpread{}.Score(ctx, state, p, ni)
		scores = append(scores, framework.NodeScore{Name: ni.Name(), Score: v})
	}
	assert.Equal(t, []int64{2, 2, 0}, []int64{scores[0].Score, scores[1].Score, scores[2].Score})
	PodTopologySpread{}.NormalizeScore(ctx, state, p, scores)
	assert.Equal(t, []int64{0, 0, 100}, []int64{scores[0].Score, scores[1].Score, scores[2].Score})
	assert.True(t, PodTopologySpread{}.PreScore(ctx, state, pod("plain", nil), nil).IsSkip())
}
