package kubelet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
)

// Container waiting reasons, as Kubernetes spells them.
const (
	ReasonContainerCreating          = "ContainerCreating"
	ReasonPodInitializing            = "PodInitializing"
	ReasonCrashLoopBackOff           = "CrashLoopBackOff"
	ReasonErrImagePull               = "ErrImagePull"
	ReasonImagePullBackOff           = "ImagePullBackOff"
	ReasonErrImageNeverPull          = "ErrImageNeverPull"
	ReasonCreateContainerConfigError = "CreateContainerConfigError"
	ReasonCreateContainerError       = "CreateContainerError"
	ReasonRunContainerError          = "RunContainerError"
	ReasonPostStartHookError         = "PostStartHookError"
)

// syncContainers runs the init containers in order, then the app
// containers, restarting exited ones per the restart policy with back-off.
// It returns when the pod needs its next sync.
func (k *Kubelet) syncContainers(ctx context.Context, pod *core.Pod, ps *podState) time.Duration {
	next := k.cfg.ResyncInterval
	now := time.Now()
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cs := ps.ctr(c.Name, true)
		if core.IsRestartableInitContainer(c) {
			// A sidecar: it keeps running (restarted whatever the pod's
			// policy); the next init container waits until it started.
			d := k.syncAppContainer(ctx, pod, ps, c, cs, now, core.RestartPolicyAlways)
			if cs.statusErr != nil {
				return retryAfterError
			}
			if !k.sidecarStarted(ctx, c, cs) {
				if d <= 0 {
					d = next
				}
				return min(next, d)
			}
			continue
		}
		st := k.containerStatus(ctx, cs)
		if cs.statusErr != nil {
			return retryAfterError // unknown: wait for the runtime
		}
		if st != nil && st.State == cri.ContainerExited && st.ExitCode == 0 {
			continue // done
		}
		if st != nil && st.State == cri.ContainerRunning {
			return next // wait for it
		}
		if st != nil { // exited, or created but never started
			k.recordExit(ctx, cs, st)
			if pod.Spec.RestartPolicy == core.RestartPolicyNever {
				return next // the pod fails (computeStatus)
			}
			if !k.restartDue(pod, cs, now) {
				return time.Until(cs.restart.until)
			}
		}
		if d, started := k.startContainer(ctx, pod, ps, c, cs); !started {
			return min(next, d)
		}
		return next
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cs := ps.ctr(c.Name, false)
		if d := k.syncAppContainer(ctx, pod, ps, c, cs, now, pod.Spec.RestartPolicy); d > 0 {
			next = min(next, d)
		}
	}
	if d := k.syncEphemeralContainers(ctx, pod, ps); d > 0 {
		next = min(next, d)
	}
	return next
}

// sidecarStarted reports whether the sidecar c runs and has started: its
// startup probe passed, or it has none.
func (k *Kubelet) sidecarStarted(ctx context.Context, c *core.Container, cs *ctrState) bool {
	st := k.containerStatus(ctx, cs)
	if st == nil || st.State != cri.ContainerRunning || cs.killReason != "" {
		return false
	}
	if c.StartupProbe == nil {
		cs.started = true
	}
	return cs.started
}

// syncAppContainer brings one app container (or sidecar) to its wanted
// state under the restart policy policy.
func (k *Kubelet) syncAppContainer(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState, now time.Time, policy core.RestartPolicy) time.Duration {
	st := k.containerStatus(ctx, cs)
	if cs.statusErr != nil {
		return retryAfterError // unknown, not gone: wait for the runtime
	}
	if st != nil && st.State == cri.ContainerRunning {
		if cs.killReason == "" && !k.actuateResize(ctx, pod, ps, c, cs, st) {
			return 0
		}
		if cs.killReason != ReasonResize {
			if err := k.killContainer(ctx, pod, c, cs, gracePeriod(pod)); err != nil {
				return retryAfterError
			}
		}
		st = k.containerStatus(ctx, cs)
	}
	if st != nil && (st.State == cri.ContainerExited || st.State == cri.ContainerCreated || st.State == cri.ContainerUnknown) {
		k.recordExit(ctx, cs, st)
		if !shouldRestart(policy, st.ExitCode, cs.killReason != "") {
			return 0
		}
		// A restart to apply a resize is no crash: it waits for no back-off.
		if cs.killReason != ReasonResize && !k.restartDue(pod, cs, now) {
			return time.Until(cs.restart.until)
		}
	}
	d, _ := k.startContainer(ctx, pod, ps, c, cs)
	return d
}

// shouldRestart applies a restart policy to an exited container; a
// container the kubelet killed (liveness) restarts unless the policy is
// Never.
func shouldRestart(p core.RestartPolicy, exit int32, killed bool) bool {
	switch p {
	case core.RestartPolicyNever:
		return false
	case core.RestartPolicyOnFailure:
		return exit != 0 || killed
	}
	return true
}

// recordExit remembers an exited container's termination once, and starts
// its restart back-off.
func (k *Kubelet) recordExit(ctx context.Context, cs *ctrState, st *cri.ContainerStatus) {
	if cs.lastTerm != nil && cs.lastTerm.ContainerID == runtimeID(st.ID) {
		return
	}
	cs.lastTerm = k.terminated(ctx, cs, st)
	cs.ready = false
	finished := st.FinishedAt
	if finished.IsZero() {
		finished = time.Now()
	}
	if !st.StartedAt.IsZero() && finished.Sub(st.StartedAt) > 10*time.Minute {
		cs.restart = backoff{} // ran long enough: forget the crash loop
	}
	cs.restart.next(finished, k.cfg.CrashLoopBackOff, k.cfg.MaxBackOff)
}

// restartDue reports whether the back-off allows a restart now, setting
// the waiting reason and recording a BackOff Event when it does not.
func (k *Kubelet) restartDue(pod *core.Pod, cs *ctrState, now time.Time) bool {
	if cs.restart.waiting(now) {
		cs.waiting = &core.ContainerStateWaiting{Reason: ReasonCrashLoopBackOff,
			Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", cs.restart.delay, cs.name, podDescription(pod))}
		k.containerEvent(pod, cs, core.EventTypeWarning, EventBackOff, "Back-off restarting failed container %s in pod %s", cs.name, podDescription(pod))
		return false
	}
	return true
}

// containerStatus asks the runtime for the container's status; nil when
// there is none, or when the runtime could not tell (cs.statusErr is then
// set: callers must not take the container for gone).
func (k *Kubelet) containerStatus(ctx context.Context, cs *ctrState) *cri.ContainerStatus {
	if cs.id == "" {
		return nil
	}
	if cs.cached != nil && cs.cached.ID == cs.id {
		return cs.cached
	}
	st, err := k.cfg.Runtime.ContainerStatus(ctx, cs.id)
	if err != nil {
		if errors.Is(err, cri.ErrNotFound) {
			cs.id = ""
		} else {
			cs.statusErr = err
		}
		return nil
	}
	cs.cached, cs.statusErr = &st, nil
	return &st
}

// startContainer pulls the image, builds the config, creates and starts a
// new attempt of c and runs its postStart hook. It returns whether the
// container started, and when to retry if not.
func (k *Kubelet) startContainer(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState) (time.Duration, bool) {
	if !ps.volumesReady || ps.sandboxID == "" {
		return retryAfterError, false
	}
	imageRef, wait, err := k.ensureImage(ctx, pod, c, ps)
	if err != nil {
		return wait, false
	}
	if wait, err := k.ensureImageVolumes(ctx, pod, ps, c, cs); err != nil {
		return wait, false
	}
	// The kubelet knows the sandbox's IPs before it builds a container's
	// config: join the attachment first when the env reads them.
	if needsPodIPs(c) {
		if err := ps.awaitNetwork(); err != nil {
			cs.waiting = &core.ContainerStateWaiting{Reason: ReasonContainerCreating, Message: err.Error()}
			return retryAfterError, false
		}
	}
	cfg, err := k.containerConfig(ctx, pod, ps, c, cs, imageRef)
	if err != nil {
		k.containerEvent(pod, cs, core.EventTypeWarning, EventFailed, "Error: %v", err)
		cs.waiting = &core.ContainerStateWaiting{Reason: ReasonCreateContainerConfigError, Message: err.Error()}
		return retryAfterError, false
	}
	old := cs.id
	id, err := k.cfg.Runtime.CreateContainer(ctx, ps.sandboxID, cfg, ps.sandboxCfg)
	if err != nil {
		k.containerEvent(pod, cs, core.EventTypeWarning, EventFailed, "Error: %v", err)
		cs.waiting = &core.ContainerStateWaiting{Reason: ReasonCreateContainerError, Message: err.Error()}
		return retryAfterError, false
	}
	// The network was attached while the container was created; it must
	// be ready before the container starts.
	if err := ps.awaitNetwork(); err != nil {
		_ = k.cfg.Runtime.RemoveContainer(ctx, id)
		cs.waiting = &core.ContainerStateWaiting{Reason: ReasonContainerCreating, Message: err.Error()}
		return retryAfterError, false
	}
	// The hosts file gets the pod's IPs now that they are known.
	if k.cfg.RootDir != "" && mountsHostPath(cfg.Mounts, k.etcHostsFile(pod)) {
		if err := k.writeEtcHosts(pod, ps); err != nil {
			_ = k.cfg.Runtime.RemoveContainer(ctx, id)
			cs.waiting = &core.ContainerStateWaiting{Reason: ReasonCreateContainerError, Message: err.Error()}
			return retryAfterError, false
		}
	}
	cs.id, cs.attempt, cs.created, cs.killReason = id, cfg.Metadata.Attempt, true, ""
	cs.applied, cs.resizeErr = appliedOf(c), ""
	cs.started, cs.ready, cs.probes = false, false, nil
	if old != "" {
		if err := k.cfg.Runtime.RemoveContainer(ctx, old); err != nil && !errors.Is(err, cri.ErrNotFound) {
			k.cfg.Logger.Warn("remove old container", "container", old, "err", err)
		}
		k.releaseCPUs(old)
	}
	cs.cached = nil
	k.containerEvent(pod, cs, core.EventTypeNormal, EventCreated, "Created container: %s", c.Name)
	if err := k.cfg.Runtime.StartContainer(ctx, id); err != nil {
		k.containerEvent(pod, cs, core.EventTypeWarning, EventFailed, "Error: %v", err)
		cs.waiting = &core.ContainerStateWaiting{Reason: ReasonRunContainerError, Message: err.Error()}
		return retryAfterError, false
	}
	k.containerEvent(pod, cs, core.EventTypeNormal, EventStarted, "Started container %s", c.Name)
	// Exclusive CPUs go to the running task (its cgroup exists now).
	if err := k.assignCPUs(ctx, pod, c, cs); err != nil {
		k.cfg.Logger.Warn("static CPU manager", "pod", podKey(pod), "container", c.Name, "err", err)
	}
	cs.waiting = nil
	if h := lifecycleHandler(c, true); h != nil {
		if err := k.runHandler(ctx, pod, ps, c, cs, h, hookTimeout(pod)); err != nil {
			k.cfg.Logger.Info("postStart hook failed, killing container", "pod", podKey(pod), "container", c.Name, "err", err)
			// The hook's output stays out of the Event (it may hold secrets),
			// as in Kubernetes.
			k.containerEvent(pod, cs, core.EventTypeWarning, EventFailedPostStartHook, "PostStartHook failed")
			cs.killReason = ReasonPostStartHookError
			k.containerEvent(pod, cs, core.EventTypeNormal, EventKilling, "%s", killMessage(c.Name, cs.killReason))
			_ = k.cfg.Runtime.StopContainer(ctx, id, 0)
			cs.cached = nil
			return retryAfterError, false
		}
	}
	return 0, true
}

// hookTimeout bounds a postStart hook: the pod's grace period, at most 30 s.
func hookTimeout(pod *core.Pod) time.Duration {
	return min(gracePeriod(pod), 30*time.Second) + time.Second
}

func lifecycleHandler(c *core.Container, postStart bool) *core.LifecycleHandler {
	if c.Lifecycle == nil {
		return nil
	}
	if postStart {
		return c.Lifecycle.PostStart
	}
	return c.Lifecycle.PreStop
}

// containerConfig builds the CRI config of one attempt of c.
func (k *Kubelet) containerConfig(ctx context.Context, pod *core.Pod, ps *podState, c *core.Container, cs *ctrState, imageRef string) (cri.ContainerConfig, error) {
	var ips []string
	if ps.networkReady {
		ips = ps.podIPs
	}
	env, err := k.containerEnv(ctx, pod, c, ips)
	if err != nil {
		return cri.ContainerConfig{}, err
	}
	envMap := make(map[string]string, len(env))
	for _, kv := range env {
		envMap[kv.Key] = kv.Value
	}
	mounts, err := k.containerMounts(pod, ps, c, envMap)
	if err != nil {
		return cri.ContainerConfig{}, err
	}
	attempt := cs.attempt
	if cs.created {
		attempt++ // a new instance of a container that ran before
	}
	cfg := cri.ContainerConfig{
		Metadata:   cri.ContainerMetadata{Name: c.Name, Attempt: attempt},
		Image:      cri.ImageSpec{Image: imageRef},
		Command:    expandAll(c.Command, envMap),
		Args:       expandAll(c.Args, envMap),
		WorkingDir: c.WorkingDir,
		Envs:       env,
		Mounts:     mounts,
		Labels: map[string]string{labelPodUID: string(pod.UID), labelPodName: pod.Name, labelPodNamespace: pod.Namespace,
			labelContainerName: c.Name, labelContainerInit: fmt.Sprint(cs.init)},
		Annotations: map[string]string{},
		Stdin:       c.Stdin, StdinOnce: c.StdinOnce, TTY: c.TTY,
	}
	if c.TerminationMessagePath != "" {
		cfg.Annotations[annotationTerminationMessagePath] = c.TerminationMessagePath
		cfg.Annotations[annotationTerminationMessagePolicy] = string(c.TerminationMessagePolicy)
	}
	if k.cfg.LogDir != "" {
		cfg.LogPath = filepath.Join(c.Name, attemptString(cfg.Metadata.Attempt)+".log")
	}
	res := k.containerResources(pod, c)
	cfg.Linux.Resources = &res
	if sc := c.SecurityContext; sc != nil {
		s := &cfg.Linux.Security
		s.Privileged = sc.Privileged != nil && *sc.Privileged
		s.RunAsUser, s.RunAsGroup = sc.RunAsUser, sc.RunAsGroup
		s.ReadonlyRootfs = sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem
		s.NoNewPrivs = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
		if sc.Capabilities != nil {
			s.Capabilities = &cri.Capability{}
			for _, a := range sc.Capabilities.Add {
				s.Capabilities.Add = append(s.Capabilities.Add, string(a))
			}
			for _, d := range sc.Capabilities.Drop {
				s.Capabilities.Drop = append(s.Capabilities.Drop, string(d))
			}
		}
	}
	if ps := pod.Spec.SecurityContext; ps != nil {
		s := &cfg.Linux.Security
		if s.RunAsUser == nil {
			s.RunAsUser = ps.RunAsUser
		}
		if s.RunAsGroup == nil {
			s.RunAsGroup = ps.RunAsGroup
		}
		s.SupplementalGroups = ps.SupplementalGroups
	}
	cfg.Linux.Security.NamespaceOptions = ps.sandboxCfg.Linux.Security.NamespaceOptions
	return cfg, nil
}

// containerResources maps c's requests and limits to CFS and memory values,
// and its OOM score adjustment (oomScoreAdj), no lower than the kubelet's
// minimum.
func (k *Kubelet) containerResources(pod *core.Pod, c *core.Container) cri.LinuxContainerResources {
	r := cri.LinuxContainerResources{CPUPeriod: cfsPeriod}
	if q, ok := c.Resources.Requests[core.ResourceCPU]; ok {
		r.CPUShares = milliToShares(q.MilliValue())
	} else if q, ok := c.Resources.Limits[core.ResourceCPU]; ok {
		r.CPUShares = milliToShares(q.MilliValue())
	} else {
		r.CPUShares = 2
	}
	if q, ok := c.Resources.Limits[core.ResourceCPU]; ok {
		r.CPUQuota = milliToQuota(q.MilliValue())
	}
	if q, ok := c.Resources.Limits[core.ResourceMemory]; ok {
		r.MemoryLimitInBytes = q.Value()
	}
	r.OOMScoreAdj = max(oomScoreAdj(pod, c, k.memCapacity), k.minOOMScoreAdj)
	return r
}

// oomScoreAdj is the container's OOM score adjustment by its pod's QoS
// class, as the kubelet's: Guaranteed -997, BestEffort 1000, Burstable
// by the share of the node's memory (memCapacity) the container requests,
// 1000 - 1000*request/capacity, kept within [3, 999] so that Burstable
// containers go before Guaranteed and after BestEffort ones.
func oomScoreAdj(pod *core.Pod, c *core.Container, memCapacity int64) int64 {
	switch core.GetPodQOS(pod) {
	case core.PodQOSGuaranteed:
		return -997
	case core.PodQOSBestEffort:
		return 1000
	}
	if memCapacity <= 0 {
		return 500
	}
	var req int64
	if q, ok := c.Resources.Requests[core.ResourceMemory]; ok {
		req = q.Value()
	}
	return min(max(1000-(1000*req)/memCapacity, 3), 999)
}

// minOOMScoreAdj is the lowest OOM score adjustment containers may get:
// -1000 with CAP_SYS_RESOURCE, else the kubelet's own (a process may not
// lower its score below its parent's without it, and runc would fail to
// start a Guaranteed pod's container with -997).
func minOOMScoreAdj() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1000
	}
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err == nil && caps&(1<<capSysResource) != 0 {
				return -1000
			}
		}
	}
	own, err := strconv.ParseInt(readTrim("/proc/self/oom_score_adj"), 10, 64)
	if err != nil {
		return 0
	}
	return own
}

// capSysResource is CAP_SYS_RESOURCE's bit.
const capSysResource = 24

// minSidecarGrace is the least grace sidecars get once the other
// containers stopped, as the kubelet's minimum grace period.
const minSidecarGrace = 2 * time.Second

// killContainers runs the preStop hooks and stops the pod's containers
// within grace: every container but the sidecars in parallel, then the
// sidecars with what is left of grace (so a preStop hook can still reach
// them), as the kubelet does. Exited containers stay for their status.
func (k *Kubelet) killContainers(ctx context.Context, pod *core.Pod, ps *podState, grace time.Duration) error {
	specs := map[string]*core.Container{}
	sidecars := map[string]bool{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		specs[c.Name] = c
		sidecars[c.Name] = core.IsRestartableInitContainer(c)
	}
	for i := range pod.Spec.Containers {
		specs[pod.Spec.Containers[i].Name] = &pod.Spec.Containers[i]
	}
	start := time.Now()
	errs := k.killSome(ctx, pod, ps, specs, grace, func(name string) bool { return !sidecars[name] })
	rest := grace
	if grace > 0 {
		rest = max(grace-time.Since(start), minSidecarGrace)
	}
	errs = append(errs, k.killSome(ctx, pod, ps, specs, rest, func(name string) bool { return sidecars[name] })...)
	for _, cs := range ps.containers {
		if st := k.containerStatus(ctx, cs); st != nil && st.State != cri.ContainerRunning {
			k.recordExit(ctx, cs, st)
		}
	}
	return errors.Join(errs...)
}

// killSome kills, in parallel within grace, the pod's containers whose
// names pick selects.
func (k *Kubelet) killSome(ctx context.Context, pod *core.Pod, ps *podState, specs map[string]*core.Container, grace time.Duration, pick func(string) bool) []error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for name, cs := range ps.containers {
		if cs.id == "" || !pick(name) {
			continue
		}
		c := specs[name]
		if c == nil {
			c = &core.Container{Name: name}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := k.killContainer(ctx, pod, c, cs, grace); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}

// killContainer runs c's preStop hook (if it is running) then stops it
// with what is left of grace.
func (k *Kubelet) killContainer(ctx context.Context, pod *core.Pod, c *core.Container, cs *ctrState, grace time.Duration) error {
	st := k.containerStatus(ctx, cs)
	if st == nil && cs.statusErr != nil {
		return fmt.Errorf("stop container %s of pod %s: %w", c.Name, podKey(pod), cs.statusErr)
	}
	if st == nil {
		return nil
	}
	start := time.Now()
	if st.State == cri.ContainerRunning {
		k.containerEvent(pod, cs, core.EventTypeNormal, EventKilling, "%s", killMessage(c.Name, cs.killReason))
	}
	if st.State == cri.ContainerRunning && grace > 0 {
		if h := lifecycleHandler(c, false); h != nil {
			hctx, cancel := context.WithTimeout(ctx, grace)
			if err := k.runHandler(hctx, pod, nil, c, cs, h, grace); err != nil {
				k.cfg.Logger.Info("preStop hook failed", "pod", podKey(pod), "container", c.Name, "err", err)
				k.containerEvent(pod, cs, core.EventTypeWarning, EventFailedPreStopHook, "PreStopHook failed")
			}
			cancel()
		}
	}
	left := max(grace-time.Since(start), 0)
	if st.State == cri.ContainerRunning && left < 2*time.Second && grace > 0 {
		left = 2 * time.Second // Kubernetes' minimum after a preStop hook
	}
	cs.cached = nil
	if err := k.cfg.Runtime.StopContainer(ctx, cs.id, left); err != nil && !errors.Is(err, cri.ErrNotFound) {
		return fmt.Errorf("stop container %s of pod %s: %w", c.Name, podKey(pod), err)
	}
	return nil
}
