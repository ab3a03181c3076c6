package plugins

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/scheduler/framework"
)

var ctx = context.Background()

func rl(cpu, mem, pods string) core.ResourceList {
	out := core.ResourceList{}
	if cpu != "" {
		out[core.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		out[core.ResourceMemory] = resource.MustParse(mem)
	}
	if pods != "" {
		out[core.ResourcePods] = resource.MustParse(pods)
	}
	return out
}

func node(name string, alloc core.ResourceList, lbls map[string]string) *core.Node {
	return &core.Node{ObjectMeta: meta.ObjectMeta{Name: name, Labels: lbls}, Status: core.NodeStatus{Allocatable: alloc}}
}

func pod(name string, req core.ResourceList) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", UID: meta.UID("uid-" + name)},
		Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: req}}}}}
}

func onNode(p *core.Pod, n string) *core.Pod {
	p.Spec.NodeName = n
	return p
}

func labelled(p *core.Pod, kv ...string) *core.Pod {
	p.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Labels[kv[i]] = kv[i+1]
	}
	return p
}

func nodeInfo(n *core.Node, pods ...*core.Pod) *framework.NodeInfo {
	ni := framework.NewNodeInfo(n)
	for _, p := range pods {
		ni.AddPod(framework.NewPodInfo(p))
	}
	return ni
}

// runFilter runs PreFilter (when the plugin has one) then Filter, with a
// snapshot of the given nodes.
func runFilter(pl framework.Predicate, p *core.Pod, ni *framework.NodeInfo, snap *framework.Snapshot) *framework.Status {
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	if pf, ok := pl.(framework.PreFilter); ok {
		s := pf.PreFilter(ctx, state, p)
		if s.IsSkip() {
			return nil
		}
		if !s.IsSuccess() {
			return s
		}
	}
	return pl.Filter(ctx, state, p, ni)
}

func msg(s *framework.Status) string {
	if s.IsSuccess() {
		return ""
	}
	return s.Code().String() + ": " + s.Message()
}
