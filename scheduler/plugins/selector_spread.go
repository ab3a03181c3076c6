package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/scheduler/framework"
)

// SelectorSpread spreads the pods of one controller (same controller
// owner reference) across nodes: a node with fewer of its siblings scores
// higher.
type SelectorSpread struct{}

var (
	_ framework.Priority        = SelectorSpread{}
	_ framework.PreScore        = SelectorSpread{}
	_ framework.ScoreNormalizer = SelectorSpread{}
)

// Name implements framework.Plugin.
func (SelectorSpread) Name() string { return NameSelectorSpread }

// PreScore skips pods without a controller.
func (SelectorSpread) PreScore(_ context.Context, _ *framework.CycleState, pod *core.Pod, _ []*framework.NodeInfo) *framework.Status {
	if meta.ControllerOf(&pod.ObjectMeta) == nil {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// Score implements framework.Priority: the number of siblings on the node.
func (SelectorSpread) Score(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return CountSiblings(pod, ni), nil
}

// CountSiblings counts the pods on ni (not terminating) in pod's
// namespace with the same controller as pod. It compares the PodInfos'
// ControllerUID first, so the other controllers' pods cost no read of the
// pod (a UID names one object, whatever its namespace).
func CountSiblings(pod *core.Pod, ni *framework.NodeInfo) int64 {
	ref := meta.ControllerOf(&pod.ObjectMeta)
	if ref == nil {
		return 0
	}
	var n int64
	for _, p := range ni.Pods {
		if p.ControllerUID == ref.UID && p.Pod.Namespace == pod.Namespace && !framework.IsTerminating(p.Pod) {
			n++
		}
	}
	return n
}

// NormalizeScore maps the most crowded node to 0 and empty ones to 100.
func (SelectorSpread) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *core.Pod, scores []framework.NodeScore) *framework.Status {
	framework.DefaultNormalizeScore(scores, true)
	return nil
}
