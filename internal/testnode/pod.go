package testnode

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// sync brings one pod where its fate says. It returns a delay after which
// the pod is to be looked at again (its ready delay), or an error to
// retry with backoff.
func (a *Agent) sync(ctx context.Context, key string) (time.Duration, error) {
	ns, name := informer.SplitKey(key)
	pod, err := a.pods.Lister().Get(ns, name)
	if errors.Is(err, informer.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	switch {
	case pod.Spec.NodeName == "" && pod.DeletionTimestamp == nil:
		if a.opts.Bind && len(pod.Spec.SchedulingGates) == 0 {
			return 0, a.bind(ctx, pod)
		}
		return 0, nil
	case a.nodeIndex(pod.Spec.NodeName) < 0:
		return 0, nil
	case pod.DeletionTimestamp != nil:
		return 0, a.confirmDeletion(ctx, pod)
	case core.IsPodTerminal(pod):
		return 0, nil
	}
	if wait := a.untilReady(pod); wait > 0 {
		return wait, nil
	}
	fate := (*a.fate.Load())(pod)
	var want *core.PodStatus
	switch {
	case fate == Pending && pod.Status.Phase == core.PodPending:
		return 0, nil // leave it alone, as a kubelet that cannot start it would
	case fate == Pending:
		want = pendingStatus(pod)
	case fate == Succeeded || fate == Failed:
		want = a.exitedStatus(pod, fate == Succeeded)
		if exitedEqual(&pod.Status, want) {
			return 0, nil
		}
	default:
		want = a.runningStatus(pod, fate == Ready)
		if statusEqual(&pod.Status, want) {
			return 0, nil
		}
	}
	upd := meta.DeepCopy(pod)
	upd.Status = *want
	_, err = client.For[core.Pod](a.c, pod.Namespace).UpdateStatus(ctx, upd)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return 0, err
}

// bind binds pod to the next node round-robin.
func (a *Agent) bind(ctx context.Context, pod *core.Pod) error {
	nodes := a.NodeNames()
	if len(nodes) == 0 {
		return errNoNodes
	}
	node := nodes[(a.next.Add(1)-1)%uint64(len(nodes))]
	b := &core.Binding{
		ObjectMeta: meta.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target:     core.ObjectReference{Kind: "Node", Name: node},
	}
	err := a.c.Bind(ctx, b)
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or bound by someone else: the next event tells
	}
	if err != nil {
		return fmt.Errorf("bind %s/%s to %s: %w", pod.Namespace, pod.Name, node, err)
	}
	return nil
}

// confirmDeletion finishes a graceful deletion at once, as a kubelet does
// once the containers are stopped.
func (a *Agent) confirmDeletion(ctx context.Context, pod *core.Pod) error {
	zero := int64(0)
	uid := pod.UID
	err := client.For[core.Pod](a.c, pod.Namespace).Delete(ctx, pod.Name,
		&meta.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &meta.Preconditions{UID: &uid}})
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("confirm deletion of %s/%s: %w", pod.Namespace, pod.Name, err)
}

// untilReady returns how long pod must still wait for its ready delay.
func (a *Agent) untilReady(pod *core.Pod) time.Duration {
	if a.opts.ReadyDelay <= 0 {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	first, ok := a.seen[string(pod.UID)]
	if !ok {
		first = time.Now()
		a.seen[string(pod.UID)] = first
	}
	return a.opts.ReadyDelay - time.Since(first)
}

// podIP returns the pod's IP, allocating the next one of the range.
func (a *Agent) podIP(pod *core.Pod) string {
	if pod.Status.PodIP != "" {
		return pod.Status.PodIP
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if ip, ok := a.ips[string(pod.UID)]; ok {
		return ip
	}
	base := a.opts.PodNetwork.Masked().Addr().As4()
	size := uint32(1) << (32 - a.opts.PodNetwork.Bits())
	a.nextIP++
	off := a.nextIP%(size-2) + 1 // skip the network address and wrap
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(base[:])+off)
	ip := netip.AddrFrom4(b).String()
	a.ips[string(pod.UID)] = ip
	return ip
}

// pendingStatus is what a kubelet reports for a pod it has accepted but
// not started.
func pendingStatus(pod *core.Pod) *core.PodStatus {
	st := meta.DeepCopy(&pod.Status)
	st.Phase = core.PodPending
	core.UpdatePodCondition(st, core.PodCondition{Type: core.PodScheduled, Status: meta.ConditionTrue})
	core.UpdatePodCondition(st, core.PodCondition{Type: core.PodReady, Status: meta.ConditionFalse, Reason: "ContainersNotReady"})
	return st
}

// runningStatus returns the status of pod running on its node, ready or
// not. Times already set on pod are kept, so a second call is equal.
func (a *Agent) runningStatus(pod *core.Pod, ready bool) *core.PodStatus {
	now := meta.Now()
	st := meta.DeepCopy(&pod.Status)
	st.Phase = core.PodRunning
	st.HostIP = nodeIP(a.nodeIndex(pod.Spec.NodeName))
	st.HostIPs = []core.HostIP{{IP: st.HostIP}}
	st.PodIP = a.podIP(pod)
	st.PodIPs = []core.PodIP{{IP: st.PodIP}}
	if st.StartTime == nil {
		st.StartTime = &now
	}
	cond := meta.ConditionFalse
	if ready {
		cond = meta.ConditionTrue
	}
	for _, c := range []struct {
		t core.PodConditionType
		s meta.ConditionStatus
	}{{core.PodReadyToStartContainers, meta.ConditionTrue}, {core.PodInitialized, meta.ConditionTrue},
		{core.ContainersReady, cond}, {core.PodReady, cond}, {core.PodScheduled, meta.ConditionTrue}} {
		core.UpdatePodCondition(st, core.PodCondition{Type: c.t, Status: c.s, LastTransitionTime: now})
	}
	st.ContainerStatuses = containerStatuses(pod, st.ContainerStatuses, ready, now)
	if st.QOSClass == "" {
		st.QOSClass = core.ComputePodQOS(pod)
	}
	return st
}

func containerStatuses(pod *core.Pod, old []core.ContainerStatus, ready bool, now meta.Time) []core.ContainerStatus {
	started := true
	out := make([]core.ContainerStatus, 0, len(pod.Spec.Containers))
	for i, c := range pod.Spec.Containers {
		at := now
		for _, o := range old {
			if o.Name == c.Name && o.State.Running != nil {
				at = o.State.Running.StartedAt
			}
		}
		out = append(out, core.ContainerStatus{
			Name: c.Name, Ready: ready, Image: c.Image, ImageID: "testnode://" + c.Image,
			ContainerID: fmt.Sprintf("testnode://%s-%d", pod.UID, i), Started: &started,
			State: core.ContainerState{Running: &core.ContainerStateRunning{StartedAt: at}},
		})
	}
	return out
}

// statusEqual compares what the agent sets, ignoring condition times.
func statusEqual(have, want *core.PodStatus) bool {
	if have.Phase != want.Phase || have.PodIP != want.PodIP || have.HostIP != want.HostIP ||
		have.StartTime == nil || len(have.ContainerStatuses) != len(want.ContainerStatuses) {
		return false
	}
	for i := range want.ContainerStatuses {
		if have.ContainerStatuses[i].Ready != want.ContainerStatuses[i].Ready ||
			have.ContainerStatuses[i].Image != want.ContainerStatuses[i].Image {
			return false
		}
	}
	for _, c := range want.Conditions {
		_, h := core.GetPodCondition(have, c.Type)
		if h == nil || h.Status != c.Status {
			return false
		}
	}
	return true
}

// exitedStatus returns the status of pod whose containers exited, with
// code 0 when ok, else 1: a terminal phase when the containers are not
// restarted, else Running with each container restarted once and waiting
// in CrashLoopBackOff.
func (a *Agent) exitedStatus(pod *core.Pod, ok bool) *core.PodStatus {
	st := a.runningStatus(pod, false)
	now := meta.Now()
	code, reason, phase := int32(1), "Error", core.PodFailed
	if ok {
		code, reason, phase = 0, "Completed", core.PodSucceeded
	}
	restart := pod.Spec.RestartPolicy == core.RestartPolicyAlways ||
		(!ok && pod.Spec.RestartPolicy == core.RestartPolicyOnFailure)
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		started := cs.State.Running.StartedAt
		term := &core.ContainerStateTerminated{ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: now,
			ContainerID: cs.ContainerID}
		no := false
		cs.Started = &no
		if restart {
			cs.RestartCount = 1
			cs.LastTerminationState = core.ContainerState{Terminated: term}
			cs.State = core.ContainerState{Waiting: &core.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off 10s restarting failed container"}}
			continue
		}
		cs.State = core.ContainerState{Terminated: term}
	}
	if !restart {
		st.Phase = phase
		for i := range st.Conditions {
			if t := st.Conditions[i].Type; t == core.PodReady || t == core.ContainersReady {
				st.Conditions[i].Reason = "PodCompleted"
			}
		}
	}
	return st
}

// exitedEqual compares the phase and the containers' restarts and states.
func exitedEqual(have, want *core.PodStatus) bool {
	if have.Phase != want.Phase || len(have.ContainerStatuses) != len(want.ContainerStatuses) {
		return false
	}
	for i, w := range want.ContainerStatuses {
		h := have.ContainerStatuses[i]
		if h.RestartCount != w.RestartCount || (h.State.Terminated == nil) != (w.State.Terminated == nil) ||
			(h.State.Waiting == nil) != (w.State.Waiting == nil) {
			return false
		}
	}
	return true
}
