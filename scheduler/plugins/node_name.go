package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// NodeName rejects every node but the one named by spec.nodeName, when a
// pod (typically one being simulated, or preempting) names one.
type NodeName struct{}

var _ framework.Predicate = NodeName{}

// Name implements framework.Plugin.
func (NodeName) Name() string { return NameNodeName }

// Filter implements framework.Predicate.
func (NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	if pod.Spec.NodeName == "" || pod.Spec.NodeName == ni.Name() {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonNodeName)
}

// NodeUnschedulable rejects nodes marked spec.unschedulable (cordoned)
// unless the pod tolerates the node.kubernetes.io/unschedulable taint.
type NodeUnschedulable struct{}

var _ framework.Predicate = NodeUnschedulable{}

// Name implements framework.Plugin.
func (NodeUnschedulable) Name() string { return NameNodeUnschedulable }

// Filter implements framework.Predicate.
func (NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	if !ni.Unschedulable() {
		return nil
	}
	unschedulableTaint := core.Taint{Key: core.TaintNodeUnschedulable, Effect: core.TaintEffectNoSchedule}
	if core.TolerationsTolerateTaint(pod.Spec.Tolerations, &unschedulableTaint) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonUnschedulable)
}

// NodePorts rejects nodes where a host port the pod asks for is taken.
type NodePorts struct{}

var (
	_ framework.Predicate = NodePorts{}
	_ framework.PreFilter = NodePorts{}
)

const portsKey framework.StateKey = "PreFilter" + NameNodePorts

type podPorts []framework.HostPort

// Clone implements framework.StateData; the value is immutable.
func (p podPorts) Clone() framework.StateData { return p }

// Name implements framework.Plugin.
func (NodePorts) Name() string { return NameNodePorts }

// PreFilter collects the pod's host ports; Skip when it has none.
func (NodePorts) PreFilter(_ context.Context, state *framework.CycleState, pod *core.Pod) *framework.Status {
	ports := framework.PodHostPorts(pod)
	if len(ports) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(portsKey, podPorts(ports))
	return nil
}

// Filter implements framework.Predicate.
func (NodePorts) Filter(_ context.Context, state *framework.CycleState, pod *core.Pod, ni *framework.NodeInfo) *framework.Status {
	ports, err := framework.ReadAs[podPorts](state, portsKey)
	if err != nil {
		ports = framework.PodHostPorts(pod)
	}
	if len(ports) == 0 || ni.PortsFree(ports) {
		return nil
	}
	return framework.NewStatus(framework.Unschedulable, ReasonNodePorts)
}
