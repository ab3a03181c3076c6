package kubelet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
)

// retryAfterError is how soon a failed sync step is retried.
const retryAfterError = time.Second

// syncPod runs one sync of pod in the seeds' order and returns when the
// worker should sync again; done means the pod is torn down and confirmed
// deleted, so the worker ends.
func (k *Kubelet) syncPod(ctx context.Context, pod *core.Pod, removed bool, ps *podState) (time.Duration, bool) {
	ps.dropCachedStatuses()
	if !ps.adopted {
		if err := k.adopt(ctx, pod, ps); err != nil {
			k.cfg.Logger.Warn("adopt pod", "pod", podKey(pod), "err", err)
			return retryAfterError, false
		}
	}
	if removed || pod.DeletionTimestamp != nil {
		return k.syncTerminating(ctx, pod, removed, ps)
	}
	if ps.terminal || core.IsPodTerminal(pod) {
		// A terminal phase is final (it never goes back): nothing runs again,
		// also after a kubelet restart finds the stopped sandbox.
		ps.terminal = true
		return k.cfg.ResyncInterval, false
	}
	if ps.startTime == nil {
		ps.startTime = pod.Status.StartTime
		if ps.startTime == nil {
			now := meta.Now()
			ps.startTime = &now
		}
	}
	// The status first, as the kubelet's syncPod does: a new pod shows
	// Pending with its containers ContainerCreating while its sandbox is
	// made (later syncs report at their end). An adopted pod waits for its
	// probes instead, so a kubelet restart does not flip Ready.
	if !ps.reported {
		ps.reported = true
		if ps.sandboxID == "" {
			k.reportStatus(ctx, pod, ps)
		}
	}
	// Sync handlers: activeDeadlineSeconds.
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil && time.Since(ps.startTime.Time) >= time.Duration(*d)*time.Second {
		ps.reason, ps.message = "DeadlineExceeded", fmt.Sprintf("Pod was active on the node longer than the specified deadline (%ds)", *d)
		k.podEvent(pod, core.EventTypeNormal, EventDeadlineExceeded, "%s", ps.message)
		return k.finishPod(ctx, pod, ps)
	}
	// Admission handlers, once per pod.
	if !ps.admitted {
		res := k.admit(pod)
		if !res.Admit {
			ps.rejection = &res
			ps.reason, ps.message = res.Reason, res.Message
			k.podEvent(pod, core.EventTypeWarning, res.Reason, "%s", res.Message)
			if res.Soft {
				k.reportStatus(ctx, pod, ps)
				return k.cfg.ResyncInterval, false
			}
			return k.finishPod(ctx, pod, ps)
		}
		ps.admitted, ps.rejection, ps.reason, ps.message = true, nil, "", ""
	}
	// From here on the pod runs with the resources the node allocated
	// (an in-place resize that does not fit waits).
	pod = k.allocate(pod, ps)
	next := k.cfg.ResyncInterval
	if err := k.syncPodResources(ctx, pod, ps); err != nil {
		ps.lastErr = err.Error()
		k.cfg.Logger.Info("sync pod", "pod", podKey(pod), "err", err)
		next = retryAfterError
	} else {
		ps.lastErr = ""
		next = min(next, k.syncContainers(ctx, pod, ps))
		// A resize the containers took may let the pod cgroup shrink.
		if ps.cgroupStale && cgroupView(pod, ps) == pod {
			if err := k.ensureCgroup(pod, ps); err != nil {
				k.cfg.Logger.Info("sync pod cgroup", "pod", podKey(pod), "err", err)
			} else {
				ps.cgroupStale = false
			}
		}
	}
	if err := ps.awaitNetwork(); err != nil {
		ps.lastErr = err.Error()
		k.cfg.Logger.Info("sync pod", "pod", podKey(pod), "err", err)
		next = retryAfterError
	}
	next = min(next, k.runProbes(ctx, pod, ps))
	if err := ps.statusUnknown(); err != nil {
		// The runtime could not tell a container's state (it is down or
		// restarting): report nothing rather than a guess.
		k.cfg.Logger.Info("sync pod: container status unknown", "pod", podKey(pod), "err", err)
		return retryAfterError, false
	}
	status := k.reportStatus(ctx, pod, ps)
	if status.Phase == core.PodSucceeded || status.Phase == core.PodFailed {
		return k.finishPod(ctx, pod, ps)
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		next = min(next, time.Until(ps.startTime.Add(time.Duration(*d)*time.Second)))
	}
	return max(next, 10*time.Millisecond), false
}

// syncPodResources runs the steps before the containers: cgroups, pod
// directories, volumes, sandbox and network.
func (k *Kubelet) syncPodResources(ctx context.Context, pod *core.Pod, ps *podState) error {
	if err := k.ensureCgroup(pod, ps); err != nil {
		k.podEvent(pod, core.EventTypeWarning, EventFailedCreatePodContainer, "unable to ensure pod container exists: %v", err)
		return err
	}
	if err := k.ensurePodDirs(pod); err != nil {
		k.podEvent(pod, core.EventTypeWarning, EventFailedPodDirectories, "error making pod data directories: %v", err)
		return err
	}
	if err := k.ensureVolumes(ctx, pod, ps); err != nil {
		ps.volumesReady = false
		return err
	}
	ps.volumesReady = true
	if err := k.ensureSandbox(ctx, pod, ps); err != nil {
		return err
	}
	return k.ensureNetwork(ctx, pod, ps)
}

// finishPod stops a pod that reached a terminal phase (or was refused or
// ran past its deadline): containers killed, sandbox stopped, network torn
// down; volumes stay until the pod is deleted.
func (k *Kubelet) finishPod(ctx context.Context, pod *core.Pod, ps *podState) (time.Duration, bool) {
	if err := k.killContainers(ctx, pod, ps, gracePeriod(pod)); err != nil {
		k.cfg.Logger.Warn("kill containers", "pod", podKey(pod), "err", err)
		return retryAfterError, false
	}
	if err := k.stopSandbox(ctx, pod, ps); err != nil {
		k.cfg.Logger.Warn("stop sandbox", "pod", podKey(pod), "err", err)
		return retryAfterError, false
	}
	ps.terminal = true
	k.reportStatus(ctx, pod, ps)
	return k.cfg.ResyncInterval, false
}

// syncTerminating runs the deletion of a pod: preStop, SIGTERM, SIGKILL
// after the grace period, final status, teardown, then the deletion is
// confirmed with grace period 0.
func (k *Kubelet) syncTerminating(ctx context.Context, pod *core.Pod, removed bool, ps *podState) (time.Duration, bool) {
	k.cfg.Logger.Debug("terminating pod", "pod", podKey(pod), "removed", removed, "killed", ps.killed)
	if !ps.killed {
		grace := gracePeriod(pod)
		if err := k.killContainers(ctx, pod, ps, grace); err != nil {
			k.cfg.Logger.Warn("kill containers", "pod", podKey(pod), "err", err)
			k.podEvent(pod, core.EventTypeWarning, EventFailedKillPod, "error killing pod: %v", err)
			return retryAfterError, false
		}
		ps.killed = true
	}
	if !removed {
		// The final status shows the terminated containers and, as kube's
		// kubelet writes it for a deleted pod, a terminal phase: Succeeded
		// when every container exited 0, else Failed. Controllers that
		// replace only failed pods (a Job's podReplacementPolicy Failed, its
		// podFailurePolicy) wait for it while a finalizer keeps the pod.
		st := k.computeStatus(ctx, pod, ps)
		k.status.set(pod, st)
		if err := k.status.flush(ctx, pod.UID); err != nil && !apierrors.IsNotFound(err) {
			k.cfg.Logger.Warn("final status", "pod", podKey(pod), "err", err)
		}
	}
	if err := k.teardownPod(ctx, pod, ps, grace0); err != nil {
		k.cfg.Logger.Warn("tear down pod", "pod", podKey(pod), "err", err)
		return retryAfterError, false
	}
	k.status.forget(pod.UID)
	if !removed {
		zero := int64(0)
		uid := pod.UID
		err := k.podsIn(pod.Namespace).Delete(ctx, pod.Name,
			&meta.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &meta.Preconditions{UID: &uid}})
		k.cfg.Logger.Debug("confirmed deletion", "pod", podKey(pod), "err", err)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			k.cfg.Logger.Warn("confirm deletion", "pod", podKey(pod), "err", err)
			return retryAfterError, false
		}
	}
	k.rememberFinished(pod.UID)
	return 0, true
}

const grace0 = 0

// gracePeriod is the pod's deletion grace period, else its
// terminationGracePeriodSeconds, else 30 s.
func gracePeriod(pod *core.Pod) time.Duration {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	}
	return 30 * time.Second
}

// teardownPod removes everything the pod had on the node: containers,
// sandbox (CNI TearDown before RemovePodSandbox), volumes, directories and
// cgroup. It is idempotent.
func (k *Kubelet) teardownPod(ctx context.Context, pod *core.Pod, ps *podState, _ int) error {
	var errs []error
	sandboxes, err := k.podSandboxes(ctx, pod.UID, ps)
	if err != nil {
		return err
	}
	for _, id := range sandboxes {
		ctrs, err := k.cfg.Runtime.ListContainers(ctx, cri.ContainerFilter{PodSandboxID: id})
		if err != nil && !errors.Is(err, cri.ErrNotFound) {
			errs = append(errs, err)
			continue
		}
		for _, c := range ctrs {
			_ = k.cfg.Runtime.StopContainer(ctx, c.ID, 0)
			if err := k.cfg.Runtime.RemoveContainer(ctx, c.ID); err != nil && !errors.Is(err, cri.ErrNotFound) {
				errs = append(errs, err)
			}
			k.releaseCPUs(c.ID)
		}
		if err := k.removeSandbox(ctx, pod, id); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	ps.sandboxID, ps.containers = "", map[string]*ctrState{}
	if err := k.teardownVolumes(pod, ps); err != nil {
		return err
	}
	if err := k.removePodDirs(string(pod.UID)); err != nil {
		return err
	}
	return k.removeCgroup(pod, ps)
}

// podSandboxes lists the sandboxes of the pod with uid (plus the one the
// state knows).
func (k *Kubelet) podSandboxes(ctx context.Context, uid meta.UID, ps *podState) ([]string, error) {
	sbs, err := k.cfg.Runtime.ListPodSandbox(ctx, cri.PodSandboxFilter{LabelSelector: map[string]string{labelPodUID: string(uid)}})
	if err != nil {
		return nil, fmt.Errorf("list sandboxes of pod %s: %w", uid, err)
	}
	ids := make([]string, 0, len(sbs)+1)
	seen := map[string]bool{}
	for _, sb := range sbs {
		ids, seen[sb.ID] = append(ids, sb.ID), true
	}
	if ps.sandboxID != "" && !seen[ps.sandboxID] {
		ids = append(ids, ps.sandboxID)
	}
	return ids, nil
}

// reportStatus computes the pod's status and hands it to the status manager.
func (k *Kubelet) reportStatus(ctx context.Context, pod *core.Pod, ps *podState) core.PodStatus {
	st := k.computeStatus(ctx, pod, ps)
	k.status.set(pod, st)
	return st
}

func podKey(pod *core.Pod) string { return pod.Namespace + "/" + pod.Name }
