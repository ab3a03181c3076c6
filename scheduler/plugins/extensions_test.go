package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/scheduler/framework"
)

// TestPreFilterExtensions: removing a pod through the extension changes
// what Filter decides, on a clone of the state, and adding it back
// restores the original decision; the original state is untouched.
func TestPreFilterExtensions(t *testing.T) {
	zoneA := node("a", rl("4", "8Gi", "110"), map[string]string{"zone": "a", core.LabelHostname: "a"})
	zoneB := node("b", rl("4", "8Gi", "110"), map[string]string{"zone": "b", core.LabelHostname: "b"})
	web := func(name, n string) *core.Pod { return onNode(labelled(pod(name, nil), "app", "web"), n) }
	spread := labelled(pod("new", nil), "app", "web")
	spread.Spec.TopologySpreadConstraints = []core.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone",
		WhenUnsatisfiable: core.DoNotSchedule, LabelSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	anti := pod("new", nil)
	anti.Spec.Affinity = &core.Affinity{PodAntiAffinity: &core.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []core.PodAffinityTerm{{TopologyKey: "zone",
			LabelSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}
	tests := []struct {
		name   string
		plugin interface {
			framework.Predicate
			framework.PreFilter
			framework.PreFilterExtensions
		}
		pod      *core.Pod
		existing []*core.Pod // on zone a; the first is the one removed
		before   bool        // fits zone a before the removal
	}{
		// zone a has 2 web pods, b has 1: a third in a makes skew 3-1 > 1.
		{"topology spread", PodTopologySpread{}, spread, []*core.Pod{web("w1", "a"), web("w2", "a"), web("w3", "b")}, false},
		{"inter-pod anti-affinity", InterPodAffinity{}, anti, []*core.Pod{web("w1", "a")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := framework.NewSnapshot([]*core.Node{zoneA, zoneB}, tc.existing)
			state := framework.NewCycleState()
			state.SetSnapshot(snap)
			require.True(t, tc.plugin.PreFilter(ctx, state, tc.pod).IsSuccess())
			niA, _ := snap.Get("a")
			assert.Equal(t, tc.before, tc.plugin.Filter(ctx, state, tc.pod, niA).IsSuccess())

			what := state.Clone()
			victim := framework.NewPodInfo(tc.existing[0])
			c := niA.Clone()
			require.NoError(t, c.RemovePod(victim.Pod))
			require.True(t, tc.plugin.RemovePod(ctx, what, tc.pod, victim, c).IsSuccess())
			assert.True(t, tc.plugin.Filter(ctx, what, tc.pod, c).IsSuccess(), "fits once %s is gone", victim.Pod.Name)
			assert.Equal(t, tc.before, tc.plugin.Filter(ctx, state, tc.pod, niA).IsSuccess(), "the cycle's state is untouched")

			c.AddPod(victim)
			require.True(t, tc.plugin.AddPod(ctx, what, tc.pod, victim, c).IsSuccess())
			assert.Equal(t, tc.before, tc.plugin.Filter(ctx, what, tc.pod, c).IsSuccess(), "adding it back restores the decision")
		})
	}
}

// TestSpreadNodeInclusionPolicies covers nodeAffinityPolicy,
// nodeTaintsPolicy and matchLabelKeys: zone b holds one web pod (version
// v1), zone a none; the new pod asks for maxSkew 1 and is tried on b. b
// fits only when zone a does not count (excluded by a policy) or the
// v1 pod does not count (matchLabelKeys on version).
func TestSpreadNodeInclusionPolicies(t *testing.T) {
	honor, ignore := core.NodeInclusionPolicyHonor, core.NodeInclusionPolicyIgnore
	tests := []struct {
		name    string
		nodeA   func(*core.Node)
		tweak   func(*core.Pod, *core.TopologySpreadConstraint)
		fitsOnB bool
	}{
		{"plain: a counts with 0, skew 2", nil, nil, false},
		{"tainted a counts by default (taints Ignore)", func(n *core.Node) {
			n.Spec.Taints = []core.Taint{{Key: "dedicated", Effect: core.TaintEffectNoSchedule}}
		}, nil, false},
		{"tainted a is left out with nodeTaintsPolicy Honor", func(n *core.Node) {
			n.Spec.Taints = []core.Taint{{Key: "dedicated", Effect: core.TaintEffectNoSchedule}}
		}, func(_ *core.Pod, c *core.TopologySpreadConstraint) { c.NodeTaintsPolicy = &honor }, true},
		{"a tolerated taint keeps a in", func(n *core.Node) {
			n.Spec.Taints = []core.Taint{{Key: "dedicated", Effect: core.TaintEffectNoSchedule}}
		}, func(p *core.Pod, c *core.TopologySpreadConstraint) {
			c.NodeTaintsPolicy = &honor
			p.Spec.Tolerations = []core.Toleration{{Key: "dedicated", Operator: core.TolerationOpExists}}
		}, false},
		{"a outside the nodeSelector is left out (affinity Honor by default)", nil, func(p *core.Pod, _ *core.TopologySpreadConstraint) {
			p.Spec.NodeSelector = map[string]string{"disk": "ssd"}
		}, true},
		{"a outside the nodeSelector counts with nodeAffinityPolicy Ignore", nil, func(p *core.Pod, c *core.TopologySpreadConstraint) {
			p.Spec.NodeSelector = map[string]string{"disk": "ssd"}
			c.NodeAffinityPolicy = &ignore
		}, false},
		{"matchLabelKeys: the v1 pod is another version", nil, func(p *core.Pod, c *core.TopologySpreadConstraint) {
			c.MatchLabelKeys = []string{"version"}
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := node("a", rl("4", "8Gi", "110"), map[string]string{"zone": "a", "disk": "hdd"})
			b := node("b", rl("4", "8Gi", "110"), map[string]string{"zone": "b", "disk": "ssd"})
			if tc.nodeA != nil {
				tc.nodeA(a)
			}
			existing := onNode(labelled(pod("w1", nil), "app", "web", "version", "v1"), "b")
			p := labelled(pod("new", nil), "app", "web", "version", "v2")
			p.Spec.TopologySpreadConstraints = []core.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone",
				WhenUnsatisfiable: core.DoNotSchedule, LabelSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
			if tc.tweak != nil {
				tc.tweak(p, &p.Spec.TopologySpreadConstraints[0])
			}
			snap := framework.NewSnapshot([]*core.Node{a, b}, []*core.Pod{existing})
			niB, _ := snap.Get("b")
			st := runFilter(PodTopologySpread{}, p, niB, snap)
			assert.Equal(t, tc.fitsOnB, st.IsSuccess(), msg(st))
		})
	}
}
