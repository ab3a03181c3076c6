package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// NodeAffinity is the predicate for spec.nodeSelector and required node
// affinity, and the priority for preferred node affinity (the sum of the
// weights of the preferred terms a node matches, normalized).
type NodeAffinity struct{}

var (
	_ framework.Predicate       = NodeAffinity{}
	_ framework.Priority        = NodeAffinity{}
	_ framework.PreScore        = NodeAffinity{}
	_ framework.ScoreNormalizer = NodeAffinity{}
)

// Name implements framework.Plugin.
func (NodeAffinity) Name() string { return NameNodeAffinity }

// Filter implements framework.Predicate.
func (NodeAffinity) Filter(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	if n := ni.Node(); n != nil && core.PodMatchesNodeAffinity(pod, n) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonNodeAffinity)
}

func preferredNodeTerms(pod *core.Pod) []core.PreferredSchedulingTerm {
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// PreScore skips scoring for pods without preferred node affinity.
func (NodeAffinity) PreScore(_ context.Context, _ *framework.CycleState, pod *core.Pod, _ []*framework.NodeInfo) *framework.Status {
	if len(preferredNodeTerms(pod)) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// Score implements framework.Priority: the summed weights of the matched
// preferred terms.
func (NodeAffinity) Score(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return PreferredNodeAffinityScore(pod, ni.Node()), nil
}

// PreferredNodeAffinityScore sums the weights of pod's preferred node
// affinity terms that node matches.
func PreferredNodeAffinityScore(pod *core.Pod, node *core.Node) int64 {
	var sum int64
	if node == nil {
		return 0
	}
	for _, t := range preferredNodeTerms(pod) {
		if t.Weight != 0 && core.MatchNodeSelectorTerm(node, &t.Preference) {
			sum += int64(t.Weight)
		}
	}
	return sum
}

// NormalizeScore scales the highest sum to 100.
func (NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *core.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(scores, false)
	return nil
}
