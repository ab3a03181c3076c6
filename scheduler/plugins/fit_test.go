package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/scheduler/framework"
)

func TestFit(t *testing.T) {
	n := node("n", core.ResourceList{
		core.ResourceCPU: resource.MustParse("2"), core.ResourceMemory: resource.MustParse("2Gi"),
		core.ResourcePods: resource.MustParse("2"), core.ResourceEphemeralStorage: resource.MustParse("10Gi"),
		"example.com/gpu": resource.MustParse("1"),
	}, nil)
	withInit := pod("init", rl("500m", "", ""))
	withInit.Spec.InitContainers = []core.Container{{Name: "i", Resources: core.ResourceRequirements{Requests: rl("1800m", "", "")}}}
	withOverhead := pod("overhead", rl("1", "", ""))
	withOverhead.Spec.Overhead = rl("600m", "", "")
	gpu := pod("gpu", core.ResourceList{"example.com/gpu": resource.MustParse("2")})
	eph := pod("eph", core.ResourceList{core.ResourceEphemeralStorage: resource.MustParse("20Gi")})
	tests := []struct {
		name string
		pod  *core.Pod
		on   []*core.Pod
		want string
	}{
		{"fits empty node", pod("p", rl("1", "1Gi", "")), nil, ""},
		{"no requests always fit", pod("p", nil), []*core.Pod{pod("a", rl("2", "2Gi", ""))}, ""},
		{"cpu", pod("p", rl("1", "", "")), []*core.Pod{pod("a", rl("1500m", "", ""))}, "Unschedulable: Insufficient cpu"},
		{"memory", pod("p", rl("", "1Gi", "")), []*core.Pod{pod("a", rl("", "1536Mi", ""))}, "Unschedulable: Insufficient memory"},
		{"cpu and memory", pod("p", rl("3", "3Gi", "")), nil, "Unschedulable: Insufficient cpu, Insufficient memory"},
		{"too many pods", pod("p", nil), []*core.Pod{pod("a", nil), pod("b", nil)}, "Unschedulable: Too many pods"},
		{"init container largest wins", withInit, []*core.Pod{pod("a", rl("500m", "", ""))}, "Unschedulable: Insufficient cpu"},
		{"init container fits alone", withInit, nil, ""},
		{"overhead counts", withOverhead, []*core.Pod{pod("a", rl("500m", "", ""))}, "Unschedulable: Insufficient cpu"},
		{"extended resource", gpu, nil, "Unschedulable: Insufficient example.com/gpu"},
		{"ephemeral storage", eph, nil, "Unschedulable: Insufficient ephemeral-storage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, msg(runFilter(Fit{}, tt.pod, nodeInfo(n, tt.on...), nil)))
			// Without PreFilter the plugin computes the requests itself.
			assert.Equal(t, tt.want, msg(Fit{}.Filter(ctx, framework.NewCycleState(), tt.pod, nodeInfo(n, tt.on...))))
		})
	}
}

func TestAllocationScores(t *testing.T) {
	n := node("n", rl("4", "8Gi", "110"), nil)
	tests := []struct {
		name            string
		pod             *core.Pod
		on              []*core.Pod
		least, balanced int64
	}{
		{"empty node, 1 cpu 2Gi", pod("p", rl("1", "2Gi", "")), nil, 75, 100},
		{"half used", pod("p", rl("1", "2Gi", "")), []*core.Pod{pod("a", rl("1", "2Gi", ""))}, 50, 100},
		{"unbalanced", pod("p", rl("2", "0", "")), nil, 73, 76},
		{"zero requests count as 100m/200Mi", pod("p", nil), nil, 97, 99},
		{"over capacity scores 0", pod("p", rl("8", "16Gi", "")), nil, 0, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := nodeInfo(n, tt.on...)
			state := framework.NewCycleState()
			l, s := LeastAllocated{}.Score(ctx, state, tt.pod, ni)
			assert.Nil(t, s)
			b, _ := BalancedAllocation{}.Score(ctx, state, tt.pod, ni)
			assert.Equal(t, tt.least, l, "least allocated")
			assert.Equal(t, tt.balanced, b, "balanced")
		})
	}
}
