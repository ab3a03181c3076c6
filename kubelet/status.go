package kubelet

import (
	"context"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
)

func runtimeID(id string) string { return "cri://" + id }

// terminatedState converts an exited runtime container.
func terminatedState(st *cri.ContainerStatus) *core.ContainerStateTerminated {
	reason := st.Reason
	if reason == "" {
		reason = cri.ReasonCompleted
		if st.ExitCode != 0 {
			reason = cri.ReasonError
		}
	}
	return &core.ContainerStateTerminated{ExitCode: st.ExitCode, Reason: reason, Message: st.Message,
		StartedAt: meta.NewTime(st.StartedAt), FinishedAt: meta.NewTime(st.FinishedAt), ContainerID: runtimeID(st.ID)}
}

// computeStatus builds the pod's status from the runtime and the worker's
// state, keeping condition transition times of the API's status.
func (k *Kubelet) computeStatus(ctx context.Context, pod *core.Pod, ps *podState) core.PodStatus {
	st := core.PodStatus{
		QOSClass:  core.ComputePodQOS(pod),
		HostIP:    k.cfg.NodeIP.String(),
		HostIPs:   []core.HostIP{{IP: k.cfg.NodeIP.String()}},
		StartTime: ps.startTime,
		Reason:    ps.reason,
		Message:   ps.message,
		// The generation this status was computed from (pod generation,
		// GA in Kubernetes 1.35): clients wait for it to catch up with
		// metadata.generation after a spec update.
		ObservedGeneration: pod.Generation,
	}
	if pod.Status.StartTime != nil {
		st.StartTime = pod.Status.StartTime
	}
	if ps.networkReady && len(ps.podIPs) > 0 {
		st.PodIP = ps.podIPs[0]
		for _, ip := range ps.podIPs {
			st.PodIPs = append(st.PodIPs, core.PodIP{IP: ip})
		}
	}
	initDone := true
	initFailed := false
	allReady := len(pod.Spec.Containers) > 0
	appStarted := false // an app container was created: initialization is over
	for i := range pod.Spec.Containers {
		if cs := ps.containers[pod.Spec.Containers[i].Name]; cs != nil && (cs.id != "" || cs.created) {
			appStarted = true
		}
	}
	var pending []string // init containers not done, for the Initialized condition
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if core.IsRestartableInitContainer(c) {
			cs := k.containerStatusOf(ctx, c, ps, false, ps.killed || ps.terminal)
			if !appStarted && (cs.State.Running == nil || cs.Started == nil || !*cs.Started) {
				initDone = false
				pending = append(pending, c.Name)
			}
			allReady = allReady && cs.Ready
			st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
			continue
		}
		cs := k.containerStatusOf(ctx, c, ps, true, ps.killed || ps.terminal)
		// A completed init container is ready, as the kubelet's prober
		// manager reports it.
		cs.Ready = cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0
		if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 {
			initDone = false
			pending = append(pending, c.Name)
			if cs.State.Terminated != nil && pod.Spec.RestartPolicy == core.RestartPolicyNever {
				initFailed = true
			}
		}
		if isDefaultWaiting(cs) {
			cs.State.Waiting.Reason = ReasonPodInitializing
		}
		st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cs := k.containerStatusOf(ctx, c, ps, false, ps.killed || ps.terminal)
		if len(pod.Spec.InitContainers) > 0 && (!initDone && cs.State.Waiting != nil || isDefaultWaiting(cs)) {
			cs.State.Waiting.Reason = ReasonPodInitializing
		}
		allReady = allReady && cs.Ready
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	st.EphemeralContainerStatuses = k.ephemeralContainerStatuses(ctx, pod, ps)
	st.Phase = podPhase(pod, st, initDone, initFailed, ps.killed || ps.terminal)
	if ps.rejection != nil && !ps.rejection.Soft || ps.reason == "DeadlineExceeded" {
		st.Phase = core.PodFailed
	}
	if ps.rejection != nil && ps.rejection.Soft {
		st.Phase = core.PodPending
	}
	terminal := st.Phase == core.PodSucceeded || st.Phase == core.PodFailed
	k.setConditions(pod, &st, ps, pending, allReady && !terminal)
	return st
}

// containerStatusOf builds one container's status.
func (k *Kubelet) containerStatusOf(ctx context.Context, c *core.Container, ps *podState, init, stopping bool) core.ContainerStatus {
	out := core.ContainerStatus{Name: c.Name, Image: c.Image, AllocatedResources: c.Resources.Requests}
	cs := ps.containers[c.Name]
	if cs == nil {
		out.State.Waiting = &core.ContainerStateWaiting{Reason: ReasonContainerCreating}
		if ps.lastErr != "" && strings.Contains(ps.lastErr, "volume") {
			out.State.Waiting.Message = ps.lastErr
		}
		return out
	}
	out.RestartCount = int32(cs.attempt)
	if cs.lastTerm != nil {
		out.LastTerminationState.Terminated = cs.lastTerm
	}
	rst := k.containerStatus(ctx, cs)
	f := false
	out.Started = &f
	switch {
	case rst != nil && rst.State == cri.ContainerRunning:
		out.ContainerID, out.ImageID = runtimeID(rst.ID), rst.ImageRef
		out.State.Running = &core.ContainerStateRunning{StartedAt: meta.NewTime(rst.StartedAt)}
		started := cs.started
		out.Started = &started
		out.Ready = cs.ready && cs.started && cs.killReason == ""
		out.Resources = cs.applied
		if out.Resources == nil {
			out.Resources = appliedOf(c)
		}
		if cs.lastTerm != nil && cs.lastTerm.ContainerID == runtimeID(rst.ID) {
			out.LastTerminationState.Terminated = nil
		}
	case rst != nil && rst.State == cri.ContainerExited:
		out.ContainerID, out.ImageID = runtimeID(rst.ID), rst.ImageRef
		term := k.terminated(ctx, cs, rst)
		if cs.waiting != nil && !stopping && !init {
			out.State.Waiting = cs.waiting
			out.LastTerminationState.Terminated = term
		} else if cs.waiting != nil && init && !stopping && term.ExitCode != 0 {
			out.State.Waiting = cs.waiting
			out.LastTerminationState.Terminated = term
		} else {
			out.State.Terminated = term
			if cs.lastTerm != nil && cs.lastTerm.ContainerID == term.ContainerID {
				out.LastTerminationState.Terminated = nil
			}
		}
	case cs.waiting != nil:
		out.State.Waiting = cs.waiting
	default:
		out.State.Waiting = &core.ContainerStateWaiting{Reason: ReasonContainerCreating}
	}
	if out.LastTerminationState.Terminated != nil && out.State.Terminated == nil && out.State.Running == nil &&
		out.State.Waiting == nil {
		out.State.Waiting = &core.ContainerStateWaiting{Reason: ReasonContainerCreating}
	}
	return out
}

// podPhase derives the phase from the container statuses, as Kubernetes'
// getPhase does; stopping treats the restart policy as Never.
func podPhase(pod *core.Pod, st core.PodStatus, initDone, initFailed, stopping bool) core.PodPhase {
	if initFailed {
		return core.PodFailed
	}
	if !initDone {
		if stopping && len(pod.Spec.InitContainers) > 0 {
			return core.PodFailed
		}
		return core.PodPending
	}
	var running, waiting, stopped, succeeded int
	for _, cs := range st.ContainerStatuses {
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil:
			stopped++
		default:
			waiting++
		}
	}
	policy := pod.Spec.RestartPolicy
	if stopping {
		policy = core.RestartPolicyNever
	}
	switch {
	case waiting > 0 && !stopping:
		return core.PodPending
	case running > 0:
		return core.PodRunning
	case stopped > 0 || stopping:
		switch policy {
		case core.RestartPolicyAlways:
			return core.PodRunning
		case core.RestartPolicyOnFailure:
			if stopped == succeeded {
				return core.PodSucceeded
			}
			return core.PodRunning
		}
		if stopped == succeeded && waiting == 0 {
			return core.PodSucceeded
		}
		return core.PodFailed
	}
	return core.PodPending
}

// setConditions sets Initialized, ContainersReady, Ready,
// PodReadyToStartContainers and keeps PodScheduled.
func (k *Kubelet) setConditions(pod *core.Pod, st *core.PodStatus, ps *podState, pendingInit []string, ready bool) {
	st.Conditions = append([]core.PodCondition(nil), pod.Status.Conditions...)
	now := meta.Now()
	set := func(t core.PodConditionType, ok bool, reason, msg string) {
		s := meta.ConditionFalse
		if ok {
			s = meta.ConditionTrue
		}
		core.UpdatePodCondition(st, core.PodCondition{Type: t, Status: s, Reason: reason, Message: msg,
			LastTransitionTime: now, ObservedGeneration: pod.Generation})
	}
	if _, c := core.GetPodCondition(st, core.PodScheduled); c == nil {
		set(core.PodScheduled, true, "", "")
	}
	set(core.PodReadyToStartContainers, ps.sandboxID != "" && ps.networkReady && !ps.terminal && !ps.killed, "", "")
	if len(pendingInit) == 0 {
		set(core.PodInitialized, true, "", "")
	} else {
		set(core.PodInitialized, false, "ContainersNotInitialized", "containers with incomplete status: ["+strings.Join(pendingInit, " ")+"]")
	}
	if ready {
		set(core.ContainersReady, true, "", "")
	} else {
		set(core.ContainersReady, false, "ContainersNotReady", "containers with unready status: "+unready(st.ContainerStatuses, st.InitContainerStatuses))
	}
	for _, g := range pod.Spec.ReadinessGates {
		if _, c := core.GetPodCondition(&pod.Status, g.ConditionType); c == nil || c.Status != meta.ConditionTrue {
			ready = false
		}
	}
	if ready {
		set(core.PodReady, true, "", "")
	} else {
		set(core.PodReady, false, "ContainersNotReady", "containers with unready status: "+unready(st.ContainerStatuses, st.InitContainerStatuses))
	}
	setResizeConditions(st, ps, set)
	if st.Phase == core.PodSucceeded {
		for _, t := range []core.PodConditionType{core.ContainersReady, core.PodReady} {
			if _, c := core.GetPodCondition(st, t); c != nil {
				c.Reason = core.PodReasonPodCompleted
			}
		}
	}
}

// isDefaultWaiting reports whether cs is waiting only because its
// container was not created yet; in a pod with init containers the kubelet
// reports that as PodInitializing (its default waiting state), not
// ContainerCreating.
func isDefaultWaiting(cs core.ContainerStatus) bool {
	w := cs.State.Waiting
	return w != nil && w.Reason == ReasonContainerCreating && w.Message == "" && cs.ContainerID == "" &&
		cs.LastTerminationState.Terminated == nil
}

// unready names the app containers that are not ready, then the sidecars
// (the init containers that run) that are not.
func unready(ss, inits []core.ContainerStatus) string {
	var names []string
	for _, s := range ss {
		if !s.Ready {
			names = append(names, s.Name)
		}
	}
	for _, s := range inits {
		if !s.Ready && s.State.Running != nil {
			names = append(names, s.Name)
		}
	}
	return "[" + strings.Join(names, " ") + "]"
}
