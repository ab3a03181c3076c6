package containerd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	containerd "github.com/containerd/containerd"
	tasktypes "github.com/containerd/containerd/api/types/task"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/typeurl/v2"

	"github.com/orkit/orkit/cri"
)

// labelOOM marks a container the OOM killer hit (set from the OOM event).
const labelOOM = "io.orkit.oom"

// CreateContainer creates a container in a ready sandbox, joined to its
// namespaces; the task is made by StartContainer.
func (r *Runtime) CreateContainer(ctx context.Context, sandboxID string, cfg cri.ContainerConfig, _ cri.PodSandboxConfig) (_ string, retErr error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return "", err
	}
	defer r.locks.lock(sandboxID)()
	id := containerID(sandboxID, cfg.Metadata)
	defer r.locks.lock(id)()
	sb, err := r.sandboxInfo(ctx, sandboxID)
	if err != nil {
		return "", err
	}
	if _, err := r.client.ContainerService().Get(ctx, id); err == nil {
		return "", fmt.Errorf("container %q attempt %d in sandbox %s: %w", cfg.Metadata.Name, cfg.Metadata.Attempt, sandboxID, cri.ErrAlreadyExists)
	} else if !errdefs.IsNotFound(err) {
		return "", mapErr(err, "look up container "+id)
	}
	image, err := r.localImage(ctx, cfg.Image.Image)
	if err != nil {
		return "", fmt.Errorf("container %q: %w", cfg.Metadata.Name, err)
	}
	// The spec binds the mounted image volumes; the record keeps the
	// mounts as asked.
	specCfg := cfg
	if specCfg.Mounts, err = r.resolveImageMounts(ctx, sb, cfg.Mounts); err != nil {
		return "", fmt.Errorf("container %q: %w", cfg.Metadata.Name, err)
	}
	opts, err := r.containerSpecOpts(ctx, image, specCfg, sb, id)
	if err != nil {
		return "", err
	}
	rec := containerRecord{SandboxID: sandboxID, Config: cfg, ImageRef: imageRef(image)}
	if sb.cfg.LogDirectory != "" && cfg.LogPath != "" {
		rec.LogPath = filepath.Join(sb.cfg.LogDirectory, cfg.LogPath)
	}
	ext, err := marshalRecord(typeCtr, rec)
	if err != nil {
		return "", err
	}
	labels := map[string]string{labelKind: kindContainer, labelSandboxID: sandboxID, labelName: cfg.Metadata.Name,
		labelAttempt: strconv.FormatUint(uint64(cfg.Metadata.Attempt), 10)}
	r.remember(id, objKind{sandboxID: sandboxID})
	_, err = r.client.NewContainer(ctx, id,
		containerd.WithImage(image),
		r.runtimeOpt(),
		containerd.WithSnapshotter(r.cfg.snapshotter),
		containerd.WithNewSnapshot(id, image),
		containerd.WithNewSpec(opts...),
		containerd.WithContainerLabels(labels),
		containerd.WithContainerExtension(extContainer, ext),
	)
	if err != nil {
		r.forget(id)
		return "", mapErr(err, fmt.Sprintf("create container %q in sandbox %s", cfg.Metadata.Name, sandboxID))
	}
	r.publishFor(id, sandboxID, cri.ContainerEventCreated)
	return id, nil
}

// sandboxInfo loads what a container needs from a ready sandbox.
func (r *Runtime) sandboxInfo(ctx context.Context, id string) (sandboxInfo, error) {
	c, err := r.client.ContainerService().Get(ctx, id)
	if err != nil || c.Labels[labelKind] != kindSandbox {
		if err == nil || errdefs.IsNotFound(err) {
			return sandboxInfo{}, fmt.Errorf("sandbox %q: %w", id, cri.ErrNotFound)
		}
		return sandboxInfo{}, mapErr(err, "sandbox "+id)
	}
	rec, err := sandboxRecordOf(c)
	if err != nil {
		return sandboxInfo{}, fmt.Errorf("sandbox %s: corrupt record: %w", id, err)
	}
	tasks, err := r.taskStatuses(ctx, id)
	if err != nil {
		return sandboxInfo{}, err
	}
	t := tasks[id]
	if t == nil || t.Status != tasktypes.Status_RUNNING {
		return sandboxInfo{}, fmt.Errorf("sandbox %s is not ready: %w", id, cri.ErrFailedPrecondition)
	}
	return sandboxInfo{id: id, pid: t.Pid, netns: rec.NetNSPath, dir: r.sandboxDir(id), cfg: rec.Config,
		hostname: sandboxHostname(rec.Config)}, nil
}

// StartContainer creates the container's task with its log FIFOs and
// starts it. A start failure is recorded (ContainerCannotRun, exit 128) so
// the container reads EXITED.
func (r *Runtime) StartContainer(ctx context.Context, id string) (retErr error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return err
	}
	defer r.locks.lock(id)()
	ctr, c, rec, err := r.loadApp(ctx, id)
	if err != nil {
		return err
	}
	if _, ok := c.Labels[labelStarted]; ok {
		return fmt.Errorf("container %s was already started: %w", id, cri.ErrFailedPrecondition)
	}
	if _, ok := exitOfLabels(c.Labels); ok {
		return fmt.Errorf("container %s has exited: %w", id, cri.ErrFailedPrecondition)
	}
	lc, err := r.startLogs(id, rec)
	if err != nil {
		return fmt.Errorf("container %s logs: %w", id, err)
	}
	defer func() {
		if retErr != nil {
			lc.stop()
			r.recordCannotRun(id, retErr)
		}
	}()
	task, err := ctr.NewTask(ctx, lc.creator)
	if err != nil {
		return mapErr(err, "create task of container "+id)
	}
	defer func() {
		if retErr != nil {
			cctx, cancel := cleanupCtx(r.cfg.namespace)
			defer cancel()
			task.Delete(cctx, containerd.WithProcessKill)
		}
	}()
	started := time.Now()
	if err := task.Start(ctx); err != nil {
		return mapErr(err, "start container "+id)
	}
	if _, err := ctr.SetLabels(ctx, map[string]string{labelStarted: started.UTC().Format(time.RFC3339Nano)}); err != nil {
		r.cfg.log.Warn("record container start", "id", id, "err", err)
	}
	r.publishFor(id, rec.SandboxID, cri.ContainerEventStarted)
	return nil
}

// recordCannotRun records a failed start as an exit.
func (r *Runtime) recordCannotRun(id string, cause error) {
	cctx, cancel := cleanupCtx(r.cfg.namespace)
	defer cancel()
	now := time.Now()
	labels := labelsOfExit(exitRecord{finished: now, code: 128, reason: cri.ReasonContainerCannotRun, message: cause.Error()})
	labels[labelStarted] = now.UTC().Format(time.RFC3339Nano)
	if ctr, err := r.client.LoadContainer(cctx, id); err == nil {
		ctr.SetLabels(cctx, labels)
	}
}

// loadApp loads an app container (one metadata read) with its record;
// ErrNotFound if it does not exist or is a sandbox.
func (r *Runtime) loadApp(ctx context.Context, id string) (containerd.Container, containers.Container, containerRecord, error) {
	ctr, err := r.client.LoadContainer(ctx, id)
	if errdefs.IsNotFound(err) {
		return nil, containers.Container{}, containerRecord{}, fmt.Errorf("container %q: %w", id, cri.ErrNotFound)
	}
	if err != nil {
		return nil, containers.Container{}, containerRecord{}, mapErr(err, "container "+id)
	}
	c, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
	if err != nil {
		return nil, c, containerRecord{}, mapErr(err, "container "+id)
	}
	if c.Labels[labelKind] != kindContainer {
		return nil, c, containerRecord{}, fmt.Errorf("container %q: %w", id, cri.ErrNotFound)
	}
	rec, err := containerRecordOf(c)
	if err != nil {
		return nil, c, rec, fmt.Errorf("container %s: corrupt record: %w", id, err)
	}
	return ctr, c, rec, nil
}

// containerRecord loads an app container and its record; ErrNotFound if
// it does not exist (or is a sandbox).
func (r *Runtime) containerRecord(ctx context.Context, id string) (containers.Container, containerRecord, error) {
	c, err := r.client.ContainerService().Get(ctx, id)
	if err != nil || c.Labels[labelKind] != kindContainer {
		if err == nil || errdefs.IsNotFound(err) {
			return c, containerRecord{}, fmt.Errorf("container %q: %w", id, cri.ErrNotFound)
		}
		return c, containerRecord{}, mapErr(err, "container "+id)
	}
	rec, err := containerRecordOf(c)
	if err != nil {
		return c, rec, fmt.Errorf("container %s: corrupt record: %w", id, err)
	}
	return c, rec, nil
}

// StopContainer sends SIGTERM, waits up to timeout, then SIGKILLs, and
// records the exit.
func (r *Runtime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return err
	}
	defer r.locks.lock(id)()
	if ok, err := r.isAppContainer(ctx, id); !ok || err != nil {
		return err
	}
	task, err := r.loadTask(ctx, id)
	if err != nil || task == nil {
		return err
	}
	st, err := task.Status(ctx)
	if err != nil && !errdefs.IsNotFound(err) {
		return mapErr(err, "status of container "+id)
	}
	if err == nil && st.Status != containerd.Stopped {
		if err := r.killAndWait(ctx, task, timeout); err != nil {
			return fmt.Errorf("stop container %s: %w", id, err)
		}
	}
	return r.finalizeLocked(ctx, id)
}

// killAndWait sends SIGTERM (unless timeout is 0), waits up to timeout for
// the exit, then sends SIGKILL to every process and waits.
func (r *Runtime) killAndWait(ctx context.Context, task containerd.Task, timeout time.Duration) error {
	exitC, err := task.Wait(ctx)
	if err != nil {
		return mapErr(err, "wait")
	}
	if timeout > 0 {
		if err := task.Kill(ctx, syscall.SIGTERM); err != nil && !errdefs.IsNotFound(err) {
			return mapErr(err, "SIGTERM")
		}
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case <-exitC:
			return nil
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := task.Kill(ctx, syscall.SIGKILL, containerd.WithKillAll); err != nil && !errdefs.IsNotFound(err) {
		return mapErr(err, "SIGKILL")
	}
	select {
	case <-exitC:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finalizeLocked records the exit of a stopped task in the container's
// labels and deletes the task. The caller holds id's lock. It does nothing
// for a running task, a missing container or an already recorded exit.
func (r *Runtime) finalizeLocked(ctx context.Context, id string) error {
	ctr, err := r.client.LoadContainer(ctx, id)
	if errdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return mapErr(err, "load container "+id)
	}
	task, err := ctr.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return mapErr(err, "task of container "+id)
	}
	st, err := task.Status(ctx)
	if err != nil {
		return mapErr(err, "status of container "+id)
	}
	if st.Status != containerd.Stopped {
		return nil
	}
	info, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
	if err != nil {
		return mapErr(err, "info of container "+id)
	}
	if info.Labels[labelKind] == kindContainer {
		if _, done := exitOfLabels(info.Labels); !done {
			// containerd misses the OOM event of a task killed before its
			// shim watched the cgroup: the cgroup's counter is the witness,
			// and the OOM is then published here, before the exit.
			seen := info.Labels[labelOOM] == "true"
			missed := !seen && oomKilled(ctx, ctr)
			code := int32(st.ExitStatus)
			ex := exitRecord{finished: st.ExitTime, code: code, reason: reasonFor(code, seen || missed)}
			if ex.finished.IsZero() {
				ex.finished = time.Now()
			}
			labels := labelsOfExit(ex)
			if missed {
				labels[labelOOM] = "true"
			}
			if _, err := ctr.SetLabels(ctx, labels); err != nil {
				return mapErr(err, "record exit of container "+id)
			}
			sb := info.Labels[labelSandboxID]
			if missed {
				r.publish(cri.ContainerEvent{ContainerID: id, PodSandboxID: sb, Type: cri.ContainerEventOOM, Time: ex.finished})
			}
			r.publish(cri.ContainerEvent{ContainerID: id, PodSandboxID: sb, Type: cri.ContainerEventExited, Time: ex.finished, ExitCode: code})
		}
	}
	if _, err := task.Delete(ctx); err != nil && !errdefs.IsNotFound(err) {
		return mapErr(err, "delete task of container "+id)
	}
	return nil
}

// finalize is finalizeLocked for callers without the lock.
func (r *Runtime) finalize(ctx context.Context, id string) error {
	defer r.locks.lock(id)()
	return r.finalizeLocked(ctx, id)
}

// RemoveContainer kills the container if it runs, records its exit and
// deletes it with its snapshot and FIFOs.
func (r *Runtime) RemoveContainer(ctx context.Context, id string) error {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return err
	}
	defer r.locks.lock(id)()
	if ok, err := r.isAppContainer(ctx, id); err != nil {
		return err
	} else if !ok {
		return os.RemoveAll(filepath.Join(r.cfg.stateDir, fifoDir, id))
	}
	task, err := r.loadTask(ctx, id)
	if err != nil {
		return err
	}
	if task != nil {
		if st, err := task.Status(ctx); err == nil && st.Status != containerd.Stopped {
			if err := r.killAndWait(ctx, task, 0); err != nil {
				return fmt.Errorf("remove container %s: %w", id, err)
			}
		}
		if err := r.finalizeLocked(ctx, id); err != nil {
			return err
		}
	}
	r.stopLogs(id)
	c, _, recErr := r.containerRecord(ctx, id)
	if err := r.deleteContainer(ctx, id); err != nil {
		return fmt.Errorf("remove container %s: %w", id, err)
	}
	if recErr == nil {
		r.publishFor(id, c.Labels[labelSandboxID], cri.ContainerEventDeleted)
	}
	if err := os.RemoveAll(filepath.Join(r.cfg.stateDir, fifoDir, id)); err != nil {
		return fmt.Errorf("remove container %s fifos: %w", id, err)
	}
	return nil
}

// isAppContainer reports whether id is an app container (not a sandbox,
// not missing).
func (r *Runtime) isAppContainer(ctx context.Context, id string) (bool, error) {
	c, err := r.client.ContainerService().Get(ctx, id)
	if errdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, mapErr(err, "container "+id)
	}
	return c.Labels[labelKind] == kindContainer, nil
}

// ContainerStatus reports the container.
func (r *Runtime) ContainerStatus(ctx context.Context, id string) (cri.ContainerStatus, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return cri.ContainerStatus{}, err
	}
	c, _, err := r.containerRecord(ctx, id)
	if err != nil {
		return cri.ContainerStatus{}, err
	}
	tasks, err := r.taskStatuses(ctx, id)
	if err != nil {
		return cri.ContainerStatus{}, err
	}
	return containerStatusOf(c, tasks[id])
}

// containerStatusOf derives the status from the recorded labels, else the
// task's state.
func containerStatusOf(c containers.Container, t *tasktypes.Process) (cri.ContainerStatus, error) {
	rec, err := containerRecordOf(c)
	if err != nil {
		return cri.ContainerStatus{}, fmt.Errorf("container %s: corrupt record: %w", c.ID, err)
	}
	res := rec.Resources
	if res == nil {
		res = rec.Config.Linux.Resources
	}
	st := cri.ContainerStatus{
		ID: c.ID, PodSandboxID: rec.SandboxID, Metadata: rec.Config.Metadata, CreatedAt: c.CreatedAt,
		StartedAt: timeLabel(c.Labels, labelStarted), Image: rec.Config.Image, ImageRef: rec.ImageRef,
		Labels: copyLabels(rec.Config.Labels), Annotations: copyLabels(rec.Config.Annotations),
		Mounts: rec.Config.Mounts, LogPath: rec.LogPath, Resources: res,
	}
	if ex, ok := exitOfLabels(c.Labels); ok {
		st.State, st.FinishedAt, st.ExitCode, st.Reason, st.Message = cri.ContainerExited, ex.finished, ex.code, ex.reason, ex.message
		return st, nil
	}
	switch {
	case t == nil && st.StartedAt.IsZero():
		st.State = cri.ContainerCreated
	case t == nil:
		st.State, st.Reason, st.Message = cri.ContainerUnknown, "TaskLost", "the container's task is gone and no exit was recorded"
	case t.Status == tasktypes.Status_RUNNING || t.Status == tasktypes.Status_PAUSED || t.Status == tasktypes.Status_PAUSING:
		st.State = cri.ContainerRunning
	case t.Status == tasktypes.Status_STOPPED:
		st.State, st.ExitCode = cri.ContainerExited, int32(t.ExitStatus)
		st.FinishedAt = timeOrZero(t.ExitedAt, t.ExitedAt != nil)
		// Not finalized yet: the OOM event may not have arrived; the
		// cgroup's counter knows already.
		st.Reason = reasonFor(st.ExitCode, c.Labels[labelOOM] == "true" || oomKilledRecord(c))
	case t.Status == tasktypes.Status_CREATED:
		st.State = cri.ContainerCreated
	default:
		st.State = cri.ContainerUnknown
	}
	return st, nil
}

// ListContainers lists the containers matching f, oldest first.
func (r *Runtime) ListContainers(ctx context.Context, f cri.ContainerFilter) ([]cri.Container, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := r.listRecords(ctx, kindContainer, f.ID, f.PodSandboxID)
	if err != nil {
		return nil, err
	}
	tasks, err := r.taskStatuses(ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]cri.Container, 0, len(recs))
	for _, c := range recs {
		st, err := containerStatusOf(c, tasks[c.ID])
		if err != nil {
			r.cfg.log.Warn("skipping container with a corrupt record", "id", c.ID, "err", err)
			continue
		}
		ct := cri.Container{ID: st.ID, PodSandboxID: st.PodSandboxID, Metadata: st.Metadata, Image: st.Image,
			ImageRef: st.ImageRef, State: st.State, CreatedAt: st.CreatedAt, Labels: st.Labels, Annotations: st.Annotations}
		if f.Matches(ct) {
			out = append(out, ct)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// UpdateContainerResources applies new limits to the running task (if
// any) and stores them in the container's spec and record.
func (r *Runtime) UpdateContainerResources(ctx context.Context, id string, res cri.LinuxContainerResources) error {
	if err := res.Validate(); err != nil {
		return fmt.Errorf("container %s: %w", id, err)
	}
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return err
	}
	defer r.locks.lock(id)()
	c, rec, err := r.containerRecord(ctx, id)
	if err != nil {
		return err
	}
	if _, done := exitOfLabels(c.Labels); done {
		return fmt.Errorf("container %s has exited: %w", id, cri.ErrFailedPrecondition)
	}
	ctr, err := r.client.LoadContainer(ctx, id)
	if err != nil {
		return mapErr(err, "load container "+id)
	}
	spec, err := ctr.Spec(ctx)
	if err != nil {
		return mapErr(err, "spec of container "+id)
	}
	if spec.Linux == nil {
		return fmt.Errorf("container %s has no linux spec: %w", id, cri.ErrFailedPrecondition)
	}
	spec.Linux.Resources = mergeResources(spec.Linux.Resources, res)
	if task, err := ctr.Task(ctx, nil); err == nil {
		if err := task.Update(ctx, containerd.WithResources(spec.Linux.Resources)); err != nil && !errdefs.IsNotFound(err) {
			return mapErr(err, "update resources of container "+id)
		}
	}
	rec.Resources = &res
	ext, err := marshalRecord(typeCtr, rec)
	if err != nil {
		return err
	}
	return mapErr(ctr.Update(ctx, func(_ context.Context, _ *containerd.Client, c *containers.Container) error {
		any, err := typeurl.MarshalAny(spec)
		if err != nil {
			return err
		}
		c.Spec = any
		c.Extensions[extContainer] = ext
		return nil
	}), "store resources of container "+id)
}
