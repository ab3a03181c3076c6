package framework_test

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// gpuOnly is a custom predicate: a few lines of Go.
type gpuOnly struct{}

func (gpuOnly) Name() string { return "GPUOnly" }

func (gpuOnly) Filter(_ context.Context, _ *framework.CycleState, _ *core.Pod, n *framework.NodeInfo) *framework.Status {
	if n.Node().Labels["gpu"] != "true" {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had no GPU")
	}
	return nil
}

func ExampleNew() {
	fwk, err := framework.New(framework.Profile{
		SchedulerName: "gpu-scheduler",
		Predicates:    []framework.Predicate{gpuOnly{}},
	})
	if err != nil {
		panic(err)
	}
	n := node("plain", "4", "8Gi")
	s := fwk.RunFilter(context.Background(), framework.NewCycleState(), pod("p", "", ""), framework.NewNodeInfo(n))
	fmt.Println(fwk.SchedulerName(), s.Plugin(), s.Message())
	// Output: gpu-scheduler GPUOnly node(s) had no GPU
}
