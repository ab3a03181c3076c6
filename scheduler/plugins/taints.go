package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// TaintToleration is the predicate that keeps pods off nodes with
// NoSchedule and NoExecute taints they do not tolerate, and the priority
// that prefers nodes with fewer untolerated PreferNoSchedule taints.
type TaintToleration struct{}

var (
	_ framework.Predicate       = TaintToleration{}
	_ framework.Priority        = TaintToleration{}
	_ framework.ScoreNormalizer = TaintToleration{}
)

// Name implements framework.Plugin.
func (TaintToleration) Name() string { return NameTaintToleration }

// Filter implements framework.Predicate.
func (TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	if t, bad := UntoleratedTaint(ni.Taints(), pod.Spec.Tolerations); bad {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, UntoleratedTaintReason(t))
	}
	return nil
}

// UntoleratedTaint returns the first NoSchedule or NoExecute taint that
// no toleration matches.
func UntoleratedTaint(taints []core.Taint, tolerations []core.Toleration) (core.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != core.TaintEffectNoSchedule && t.Effect != core.TaintEffectNoExecute {
			continue
		}
		if !core.TolerationsTolerateTaint(tolerations, t) {
			return *t, true
		}
	}
	return core.Taint{}, false
}

// UntoleratedTaintReason words a rejection by t as Kubernetes does:
// "node(s) had untolerated taint {key: value}".
func UntoleratedTaintReason(t core.Taint) string {
	return "node(s) had untolerated taint {" + t.Key + ": " + t.Value + "}"
}

// Score implements framework.Priority: the count of PreferNoSchedule taints
// not tolerated (normalized so fewer is better).
func (TaintToleration) Score(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return CountIntolerablePreferNoSchedule(ni.Taints(), pod.Spec.Tolerations), nil
}

// CountIntolerablePreferNoSchedule counts PreferNoSchedule taints that no
// toleration with an empty or PreferNoSchedule effect matches.
func CountIntolerablePreferNoSchedule(taints []core.Taint, tolerations []core.Toleration) int64 {
	var n int64
	for i := range taints {
		t := &taints[i]
		if t.Effect != core.TaintEffectPreferNoSchedule {
			continue
		}
		ok := false
		for j := range tolerations {
			tol := &tolerations[j]
			if (tol.Effect == "" || tol.Effect == core.TaintEffectPreferNoSchedule) && tol.ToleratesTaint(t) {
				ok = true
				break
			}
		}
		if !ok {
			n++
		}
	}
	return n
}

// NormalizeScore maps the highest count to 0 and no taints to 100.
func (TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *core.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(scores, true)
	return nil
}
