package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// LeastAllocated prefers nodes with the most CPU and memory left after
// placing the pod: the mean over CPU and memory of free/allocatable×100,
// counting pods that request nothing at the scoring defaults.
type LeastAllocated struct{}

var _ framework.Priority = LeastAllocated{}

// Name implements framework.Plugin.
func (LeastAllocated) Name() string { return NameLeastAllocated }

// Score implements framework.Priority.
func (LeastAllocated) Score(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return LeastAllocatedScore(&requestsOf(state, pod).nonZero, ni), nil
}

// LeastAllocatedScore is LeastAllocated's decision for a pod whose
// non-zero requests are req.
func LeastAllocatedScore(req *framework.Resource, ni *framework.NodeInfo) int64 {
	cpu := leastFree(ni.NonZeroRequested.MilliCPU+req.MilliCPU, ni.Allocatable.MilliCPU)
	mem := leastFree(ni.NonZeroRequested.Memory+req.Memory, ni.Allocatable.Memory)
	return (cpu + mem) / 2
}

func leastFree(requested, capacity int64) int64 {
	if capacity <= 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * framework.MaxNodeScore / capacity
}

// BalancedAllocation prefers nodes whose CPU and memory would be used in
// equal fractions after placing the pod: (1 − |cpu% − mem%| / 2) × 100.
type BalancedAllocation struct{}

var _ framework.Priority = BalancedAllocation{}

// Name implements framework.Plugin.
func (BalancedAllocation) Name() string { return NameBalancedAllocation }

// Score implements framework.Priority.
func (BalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return BalancedAllocationScore(&requestsOf(state, pod).nonZero, ni), nil
}

// BalancedAllocationScore is BalancedAllocation's decision.
func BalancedAllocationScore(req *framework.Resource, ni *framework.NodeInfo) int64 {
	cpu := fraction(ni.NonZeroRequested.MilliCPU+req.MilliCPU, ni.Allocatable.MilliCPU)
	mem := fraction(ni.NonZeroRequested.Memory+req.Memory, ni.Allocatable.Memory)
	d := cpu - mem
	if d < 0 {
		d = -d
	}
	return int64((1 - d/2) * float64(framework.MaxNodeScore))
}

func fraction(requested, capacity int64) float64 {
	if capacity <= 0 {
		return 1
	}
	return min(1, float64(requested)/float64(capacity))
}
