package kubelet

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
)

// In-place pod resize (pods/resize), as the kubelet does it: the node
// allocates a resize when it fits (the pod's new requests within the
// node's allocatable next to the other pods' requests), then applies the
// allocated resources to the pod cgroup and to each running container
// (UpdateContainerResources, or a restart where the container's resize
// policy asks for one). Until a resize fits, the pod keeps running with
// what was allocated before, and its PodResizePending condition says why.
// Container statuses report allocatedResources and, for running
// containers, the resources applied.

// ReasonResize is the kill reason of a container restarted to apply a
// resize (its resize policy is RestartContainer).
const ReasonResize = "Resize"

// resizePending is why a resize is not allocated yet.
type resizePending struct {
	reason, message string
}

// allocate returns pod as the node runs it: its containers' resources are
// the allocated ones. The first call allocates what the pod asks for (the
// pod was admitted with it); later ones allocate a resize when it fits,
// and otherwise record in ps.resizePending why not.
func (k *Kubelet) allocate(pod *core.Pod, ps *podState) *core.Pod {
	if ps.allocated == nil {
		ps.allocated = requirementsOf(pod)
		return pod
	}
	if allocatedAs(pod, ps.allocated) { // every sync: compare in place
		ps.resizePending = nil
		return pod
	}
	want := requirementsOf(pod)
	if p := k.resizeFits(pod); p != nil {
		if ps.resizePending == nil || *ps.resizePending != *p {
			k.podEvent(pod, core.EventTypeWarning, "ResizeInfeasible", "%s", p.message)
		}
		ps.resizePending = p
		return withResources(pod, ps.allocated)
	}
	ps.allocated, ps.resizePending = want, nil
	return pod
}

// resizeFits checks the pod's new requests against the node: nil when they
// fit, else Infeasible (beyond the node's allocatable) or Deferred (beyond
// what the other pods leave).
func (k *Kubelet) resizeFits(pod *core.Pod) *resizePending {
	alloc := k.allocatable()
	req := core.PodRequests(pod)
	for _, name := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory} {
		a, ok := alloc[name]
		r := req[name]
		if ok && r.Cmp(a) > 0 {
			return &resizePending{core.PodReasonInfeasible, fmt.Sprintf(
				"Node didn't have enough capacity: %s, requested: %s, capacity: %s", name, qstr(r), qstr(a))}
		}
	}
	used := requestsOf(k.activePods(pod.UID))
	for _, name := range []core.ResourceName{core.ResourceCPU, core.ResourceMemory} {
		a, ok := alloc[name]
		if !ok {
			continue
		}
		if msg, short := notEnough(name, req[name], used[name], a); short {
			return &resizePending{core.PodReasonDeferred, msg}
		}
	}
	return nil
}

// requirementsOf returns every container's resources by name. The
// requests and limits are pod's own maps, not copies: pods from the
// informer are read-only, and a resize arrives as a new object.
func requirementsOf(pod *core.Pod) map[string]core.ResourceRequirements {
	out := make(map[string]core.ResourceRequirements, len(pod.Spec.Containers)+len(pod.Spec.InitContainers))
	for _, cs := range [][]core.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			out[cs[i].Name] = cs[i].Resources
		}
	}
	return out
}

// allocatedAs reports whether pod's containers ask for what alloc holds
// (requirementsOf(pod) equal to alloc), without building the map.
func allocatedAs(pod *core.Pod, alloc map[string]core.ResourceRequirements) bool {
	n := 0
	for _, cs := range [][]core.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			a, ok := alloc[cs[i].Name]
			if !ok || !sameRequirements(cs[i].Resources, a) {
				return false
			}
			n++
		}
	}
	return n == len(alloc)
}

// withResources returns a copy of pod whose containers have the given
// resources.
func withResources(pod *core.Pod, res map[string]core.ResourceRequirements) *core.Pod {
	p := *pod
	set := func(cs []core.Container) []core.Container {
		out := make([]core.Container, len(cs))
		for i := range cs {
			out[i] = cs[i]
			if r, ok := res[cs[i].Name]; ok {
				out[i].Resources = r
			}
		}
		return out
	}
	p.Spec.Containers, p.Spec.InitContainers = set(pod.Spec.Containers), set(pod.Spec.InitContainers)
	return &p
}

// actuateResize brings the running container c to its allocated resources:
// it updates the container's limits in place, or kills it for a restart
// when a changed resource's policy is RestartContainer. It returns whether
// the container was killed.
func (k *Kubelet) actuateResize(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState, st *cri.ContainerStatus) bool {
	want := k.containerResources(pod, c)
	want.CpusetCpus = cs.cpus
	have := st.Resources
	if have == nil || sameLimits(*have, want) {
		cs.applied, cs.resizeErr = appliedOf(c), ""
		return false
	}
	ps.cgroupStale = true
	if restartOnResize(c, *have, want) {
		cs.killReason = ReasonResize
		if err := k.killContainer(ctx, pod, c, cs, gracePeriod(pod)); err != nil {
			k.cfg.Logger.Warn("restart container to resize", "pod", podKey(pod), "container", c.Name, "err", err)
		}
		return true
	}
	if err := k.cfg.Runtime.UpdateContainerResources(ctx, cs.id, want); err != nil {
		cs.resizeErr = err.Error()
		k.cfg.Logger.Warn("resize container", "pod", podKey(pod), "container", c.Name, "err", err)
		return false
	}
	cs.cached, cs.resizeErr = nil, ""
	cs.applied = appliedOf(c)
	return false
}

// cgroupView is the pod whose limits the pod cgroup gets: per container
// the larger of what it runs with and what it was allocated, so that the
// pod cgroup never holds less than a container below it while a resize is
// applied (cgroup v1 refuses a parent CFS quota below a child's). Once
// every container runs with its allocation, it is the allocated pod.
func cgroupView(pod *core.Pod, ps *podState) *core.Pod {
	var res map[string]core.ResourceRequirements
	for _, cs := range [][]core.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			st := ps.containers[cs[i].Name]
			if st == nil || st.applied == nil || sameRequirements(*st.applied, cs[i].Resources) {
				continue
			}
			if res == nil {
				res = map[string]core.ResourceRequirements{}
			}
			res[cs[i].Name] = core.ResourceRequirements{
				Requests: maxList(st.applied.Requests, cs[i].Resources.Requests, false),
				Limits:   maxList(st.applied.Limits, cs[i].Resources.Limits, true),
			}
		}
	}
	if res == nil {
		return pod
	}
	return withResources(pod, res)
}

// maxList is the larger of a and b per resource; with absentIsMax (limits)
// a resource either leaves out is left out (unlimited).
func maxList(a, b core.ResourceList, absentIsMax bool) core.ResourceList {
	out := core.ResourceList{}
	for name, q := range a {
		o, ok := b[name]
		switch {
		case !ok && absentIsMax:
		case !ok || q.Cmp(o) > 0:
			out[name] = q.DeepCopy()
		default:
			out[name] = o.DeepCopy()
		}
	}
	for name, q := range b {
		if _, ok := a[name]; !ok && !absentIsMax {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// sameLimits reports whether a running container's limits are want's.
func sameLimits(have, want cri.LinuxContainerResources) bool {
	return have.CPUShares == want.CPUShares && have.CPUQuota == want.CPUQuota &&
		have.MemoryLimitInBytes == want.MemoryLimitInBytes
}

// restartOnResize reports whether going from have to want changes a
// resource whose resize policy restarts the container.
func restartOnResize(c *core.Container, have, want cri.LinuxContainerResources) bool {
	changed := map[core.ResourceName]bool{
		core.ResourceCPU:    have.CPUShares != want.CPUShares || have.CPUQuota != want.CPUQuota,
		core.ResourceMemory: have.MemoryLimitInBytes != want.MemoryLimitInBytes,
	}
	for _, p := range c.ResizePolicy {
		if p.RestartPolicy == core.ResizeRestartContainer && changed[p.ResourceName] {
			return true
		}
	}
	return false
}

// setResizeConditions sets or clears PodResizePending and
// PodResizeInProgress (a resize allocated but not applied to every running
// container yet).
func setResizeConditions(st *core.PodStatus, ps *podState, set func(core.PodConditionType, bool, string, string)) {
	remove := func(t core.PodConditionType) {
		if i, _ := core.GetPodCondition(st, t); i >= 0 {
			st.Conditions = append(st.Conditions[:i], st.Conditions[i+1:]...)
		}
	}
	if p := ps.resizePending; p != nil {
		set(core.PodResizePending, true, p.reason, p.message)
	} else {
		remove(core.PodResizePending)
	}
	inProgress, msg := false, ""
	for _, cs := range st.ContainerStatuses {
		if cs.State.Running == nil || cs.Resources == nil {
			continue
		}
		if want, ok := ps.allocated[cs.Name]; ok && !sameRequirements(*cs.Resources, want) {
			inProgress = true
			if s := ps.containers[cs.Name]; s != nil && s.resizeErr != "" {
				msg = s.resizeErr
			}
		}
	}
	if inProgress {
		reason := ""
		if msg != "" {
			reason = "Error"
		}
		set(core.PodResizeInProgress, true, reason, msg)
	} else {
		remove(core.PodResizeInProgress)
	}
}

// appliedOf is what the container runs with once c's resources are
// applied. It shares c's maps, which nothing mutates (see requirementsOf).
func appliedOf(c *core.Container) *core.ResourceRequirements {
	r := c.Resources
	return &r
}

// sameRequirements compares requests and limits by value ("1000m" is "1").
func sameRequirements(a, b core.ResourceRequirements) bool {
	return a.Requests.Equal(b.Requests) && a.Limits.Equal(b.Limits)
}
