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
