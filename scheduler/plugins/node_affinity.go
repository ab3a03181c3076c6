package plugins

import (
	"context"
	"slices"
	"strconv"

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
	if n := ni.Node(); n != nil && PodMatchesNodeAffinity(pod, n) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonNodeAffinity)
}

// PodMatchesNodeAffinity reports whether node carries every label of the
// pod's nodeSelector and matches its required node affinity (any term).
func PodMatchesNodeAffinity(pod *core.Pod, node *core.Node) bool {
	for k, v := range pod.Spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	return MatchNodeSelectorTerms(node, a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
}

// MatchNodeSelectorTerms reports whether node matches any of terms (none
// matches when terms is empty).
func MatchNodeSelectorTerms(node *core.Node, terms []core.NodeSelectorTerm) bool {
	for i := range terms {
		if MatchNodeSelectorTerm(node, &terms[i]) {
			return true
		}
	}
	return false
}

// MatchNodeSelectorTerm reports whether node satisfies every requirement
// of term. A term with no requirements matches no node. matchFields
// supports metadata.name with In and NotIn.
func MatchNodeSelectorTerm(node *core.Node, term *core.NodeSelectorTerm) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for i := range term.MatchExpressions {
		r := &term.MatchExpressions[i]
		v, ok := node.Labels[r.Key]
		if !matchRequirement(r, v, ok) {
			return false
		}
	}
	for i := range term.MatchFields {
		r := &term.MatchFields[i]
		if r.Key != "metadata.name" || (r.Operator != core.NodeSelectorOpIn && r.Operator != core.NodeSelectorOpNotIn) {
			return false
		}
		if !matchRequirement(r, node.Name, true) {
			return false
		}
	}
	return true
}

// matchRequirement applies one requirement to the value v (present when
// ok). Gt and Lt compare integers; a value or bound that is not one fails.
func matchRequirement(r *core.NodeSelectorRequirement, v string, ok bool) bool {
	switch r.Operator {
	case core.NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case core.NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case core.NodeSelectorOpExists:
		return ok
	case core.NodeSelectorOpDoesNotExist:
		return !ok
	case core.NodeSelectorOpGt, core.NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		bound, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == core.NodeSelectorOpGt {
			return have > bound
		}
		return have < bound
	}
	return false
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
		if t.Weight != 0 && MatchNodeSelectorTerm(node, &t.Preference) {
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
