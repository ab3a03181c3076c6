package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// Fit is the NodeResourcesFit predicate: the node's allocatable minus
// what its pods request must cover the pod's requests (CPU, memory,
// ephemeral storage, extended resources and one pod slot), with the pod's
// requests computed by framework.PodRequests (init-container rule,
// overhead). PreFilter computes the requests once per cycle.
type Fit struct{}

var (
	_ framework.Predicate = Fit{}
	_ framework.PreFilter = Fit{}
)

const fitKey framework.StateKey = "PreFilter" + NameNodeResourcesFit

// podRequests is the per-cycle state of Fit and the allocation scorers.
type podRequests struct {
	req, nonZero framework.Resource
}

// Clone implements framework.StateData; the value is immutable.
func (p *podRequests) Clone() framework.StateData { return p }

// Name implements framework.Plugin.
func (Fit) Name() string { return NameNodeResourcesFit }

// PreFilter computes the pod's requests.
func (Fit) PreFilter(_ context.Context, state *framework.CycleState, pod *core.Pod) *framework.Status {
	pi := state.PodInfoFor(pod)
	state.Write(fitKey, &podRequests{req: pi.Requests, nonZero: pi.NonZeroRequests})
	return nil
}

func computeRequests(pod *core.Pod) *podRequests {
	r, nz := framework.PodRequests(pod)
	return &podRequests{req: r, nonZero: nz}
}

// requestsOf reads the PreFilter's result, computing it when PreFilter
// did not run (a plugin used on its own).
func requestsOf(state *framework.CycleState, pod *core.Pod) *podRequests {
	if pr, err := framework.ReadAs[*podRequests](state, fitKey); err == nil {
		return pr
	}
	return computeRequests(pod)
}

// Filter implements framework.Predicate.
func (Fit) Filter(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	missing := Insufficient(&requestsOf(state, pod).req, ni)
	if len(missing) == 0 {
		return nil
	}
	return framework.NewStatus(framework.Unschedulable, missing...)
}

// Insufficient is Fit's decision: the reasons ("Too many pods",
// "Insufficient cpu", "Insufficient example.com/gpu", ...) why a pod
// requesting req does not fit ni, in that order (extended resources by
// name); none when it fits. Zero requests never fail.
func Insufficient(req *framework.Resource, ni *framework.NodeInfo) []string {
	var out []string
	if int64(len(ni.Pods))+1 > ni.Allocatable.AllowedPodNumber {
		out = append(out, ReasonTooManyPods)
	}
	check := func(name core.ResourceName, want, alloc, used int64) {
		if want > 0 && want > alloc-used {
			out = append(out, "Insufficient "+string(name))
		}
	}
	a, u := &ni.Allocatable, &ni.Requested
	check(core.ResourceCPU, req.MilliCPU, a.MilliCPU, u.MilliCPU)
	check(core.ResourceMemory, req.Memory, a.Memory, u.Memory)
	check(core.ResourceEphemeralStorage, req.EphemeralStorage, a.EphemeralStorage, u.EphemeralStorage)
	if len(req.Scalar) > 0 {
		for _, name := range sortedNames(req.Scalar) {
			check(name, req.Scalar[name], a.Scalar[name], u.Scalar[name])
		}
	}
	return out
}

func sortedNames(m map[core.ResourceName]int64) []core.ResourceName {
	out := make([]core.ResourceName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
