package fake

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/orkit/orkit/cri"
)

// container is one simulated container.
type container struct {
	seq     uint64
	cfg     cri.ContainerConfig // owned copy, for the program and exec models
	status  cri.ContainerStatus
	program Program
	timer   *time.Timer   // pending self-exit; nil if none
	exited  chan struct{} // closed at exit; nil until started
}

func (c *container) stopTimer() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

// view is the container as ListContainers reports it; maps are shared, so
// callers clone before handing it out.
func (c *container) view() cri.Container {
	st := c.status
	return cri.Container{ID: st.ID, PodSandboxID: st.PodSandboxID, Metadata: st.Metadata, Image: st.Image,
		ImageRef: st.ImageRef, State: st.State, CreatedAt: st.CreatedAt, Labels: st.Labels, Annotations: st.Annotations}
}

// CreateContainer records a CREATED container. Errors: cri.ErrInvalidArgument,
// cri.ErrNotFound (sandbox), cri.ErrFailedPrecondition (sandbox not READY),
// cri.ErrImageNotFound, cri.ErrAlreadyExists (same name and attempt).
func (r *Runtime) CreateContainer(ctx context.Context, sandboxID string, cfg cri.ContainerConfig,
	sandboxCfg cri.PodSandboxConfig) (string, error) {
	if err := r.enter(ctx, "CreateContainer"); err != nil {
		return "", err
	}
	if err := cfg.Validate(); err != nil {
		return "", fmt.Errorf("create container in sandbox %q: %w", sandboxID, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[sandboxID]
	if !ok {
		return "", fmt.Errorf("create container %q: sandbox %q: %w", cfg.Metadata.Name, sandboxID, cri.ErrNotFound)
	}
	if s.status.State != cri.SandboxReady {
		return "", fmt.Errorf("create container %q: sandbox %q is not ready: %w",
			cfg.Metadata.Name, sandboxID, cri.ErrFailedPrecondition)
	}
	img, err := r.resolveLocked(cfg.Image.Image)
	if err != nil {
		return "", fmt.Errorf("create container %q: %w", cfg.Metadata.Name, err)
	}
	// Image volumes must be on the node too; nothing is mounted here.
	for _, m := range cfg.Mounts {
		if m.Image == nil {
			continue
		}
		if _, err := r.resolveLocked(m.Image.Image); err != nil {
			return "", fmt.Errorf("create container %q: image volume at %s: %w", cfg.Metadata.Name, m.ContainerPath, err)
		}
	}
	for _, c := range r.containers {
		if c.status.PodSandboxID == sandboxID && c.status.Metadata == cfg.Metadata {
			return "", fmt.Errorf("container %q attempt %d in sandbox %q is %s: %w",
				cfg.Metadata.Name, cfg.Metadata.Attempt, sandboxID, c.status.ID, cri.ErrAlreadyExists)
		}
	}
	cfg = cloneConfig(cfg)
	id := r.newIDLocked('c')
	logPath := ""
	if sandboxCfg.LogDirectory != "" && cfg.LogPath != "" {
		logPath = filepath.Join(sandboxCfg.LogDirectory, cfg.LogPath)
	}
	c := &container{seq: r.seq, cfg: cfg, status: cri.ContainerStatus{
		ID: id, PodSandboxID: sandboxID, Metadata: cfg.Metadata, State: cri.ContainerCreated,
		CreatedAt: time.Now(), Image: cfg.Image, ImageRef: img.img.ID, Labels: cfg.Labels,
		Annotations: cfg.Annotations, Mounts: cfg.Mounts, LogPath: logPath, Resources: cfg.Linux.Resources,
	}}
	r.containers[id] = c
	r.emitLocked(c, cri.ContainerEventCreated, 0)
	return id, nil
}

// StartContainer runs a CREATED container's simulated program.
func (r *Runtime) StartContainer(ctx context.Context, id string) error {
	if err := r.enter(ctx, "StartContainer"); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return fmt.Errorf("start container %q: %w", id, cri.ErrNotFound)
	}
	if c.status.State != cri.ContainerCreated {
		return fmt.Errorf("start container %q: it is %s: %w", id, c.status.State, cri.ErrFailedPrecondition)
	}
	c.program = r.opts.program(c.cfg)
	c.status.State = cri.ContainerRunning
	c.status.StartedAt = time.Now()
	c.exited = make(chan struct{})
	r.emitLocked(c, cri.ContainerEventStarted, 0)
	switch {
	case c.program.ExitNow:
		r.exitLocked(c, c.program.ExitCode, "")
	case c.program.ExitAfter > 0:
		code := c.program.ExitCode
		c.timer = time.AfterFunc(c.program.ExitAfter, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.containers[id] == c && !r.closed {
				r.exitLocked(c, code, "")
			}
		})
	}
	return nil
}

// exitLocked ends a running container with code; reason "" derives
// Completed or Error from the code.
func (r *Runtime) exitLocked(c *container, code int32, reason string) {
	if c.status.State != cri.ContainerRunning {
		return
	}
	if reason == "" {
		reason = cri.ReasonCompleted
		if code != 0 {
			reason = cri.ReasonError
		}
	}
	c.stopTimer()
	c.status.State = cri.ContainerExited
	c.status.FinishedAt = time.Now()
	c.status.ExitCode = code
	c.status.Reason = reason
	close(c.exited)
	r.emitLocked(c, cri.ContainerEventExited, code)
}

// StopContainer delivers SIGTERM to the simulated program: it exits with
// its TermExitCode, or, if it ignores SIGTERM, is killed (137) once timeout
// has passed (at once for timeout 0). Missing, created and exited
// containers are fine.
func (r *Runtime) StopContainer(ctx context.Context, id string, timeout time.Duration) error {
	if err := r.enter(ctx, "StopContainer"); err != nil {
		return err
	}
	r.mu.Lock()
	c, ok := r.containers[id]
	if !ok || c.status.State != cri.ContainerRunning {
		r.mu.Unlock()
		return nil
	}
	if !c.program.IgnoreSIGTERM || timeout <= 0 {
		code := c.program.TermExitCode
		if c.program.IgnoreSIGTERM {
			code = 137
		}
		r.exitLocked(c, code, "")
		r.mu.Unlock()
		return nil
	}
	exited := c.exited
	r.mu.Unlock()

	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop container %q: %w", id, ctx.Err())
	case <-t.C:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exitLocked(c, 137, cri.ReasonError)
	return nil
}

// RemoveContainer removes the container, killing it if it runs. A missing
// container is fine.
func (r *Runtime) RemoveContainer(ctx context.Context, id string) error {
	if err := r.enter(ctx, "RemoveContainer"); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.containers[id]; ok {
		r.removeContainerLocked(c)
	}
	return nil
}

func (r *Runtime) removeContainerLocked(c *container) {
	r.exitLocked(c, 137, cri.ReasonError)
	c.stopTimer()
	delete(r.containers, c.status.ID)
	r.emitLocked(c, cri.ContainerEventDeleted, 0)
}

// ListContainers returns the matching containers in creation order.
func (r *Runtime) ListContainers(ctx context.Context, f cri.ContainerFilter) ([]cri.Container, error) {
	if err := r.enter(ctx, "ListContainers"); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	found := r.sortedContainersLocked(f)
	out := make([]cri.Container, 0, len(found))
	for _, c := range found {
		v := c.view()
		v.Labels, v.Annotations = maps.Clone(v.Labels), maps.Clone(v.Annotations)
		out = append(out, v)
	}
	return out, nil
}

func (r *Runtime) sortedContainersLocked(f cri.ContainerFilter) []*container {
	var found []*container
	for _, c := range r.containers {
		if f.Matches(c.view()) {
			found = append(found, c)
		}
	}
	slices.SortFunc(found, func(a, b *container) int { return cmp.Compare(a.seq, b.seq) })
	return found
}

// ContainerStatus returns the container's status or cri.ErrNotFound.
func (r *Runtime) ContainerStatus(ctx context.Context, id string) (cri.ContainerStatus, error) {
	if err := r.enter(ctx, "ContainerStatus"); err != nil {
		return cri.ContainerStatus{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return cri.ContainerStatus{}, fmt.Errorf("container %q: %w", id, cri.ErrNotFound)
	}
	st := c.status
	st.Labels, st.Annotations = maps.Clone(st.Labels), maps.Clone(st.Annotations)
	st.Mounts = slices.Clone(st.Mounts)
	if st.Resources != nil {
		res := *st.Resources
		st.Resources = &res
	}
	return st, nil
}

// UpdateContainerResources records new limits for a created or running
// container. Errors: cri.ErrNotFound, cri.ErrFailedPrecondition (exited),
// cri.ErrInvalidArgument.
func (r *Runtime) UpdateContainerResources(ctx context.Context, id string, res cri.LinuxContainerResources) error {
	if err := r.enter(ctx, "UpdateContainerResources"); err != nil {
		return err
	}
	if err := res.Validate(); err != nil {
		return fmt.Errorf("update container %q: %w", id, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return fmt.Errorf("update container %q: %w", id, cri.ErrNotFound)
	}
	if c.status.State == cri.ContainerExited {
		return fmt.Errorf("update container %q: it has exited: %w", id, cri.ErrFailedPrecondition)
	}
	c.status.Resources = &res
	return nil
}

// ExecSync runs cmd with the exec model (by default the hello tool's
// subcommands) in a running container.
func (r *Runtime) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (cri.ExecResult, error) {
	if err := r.enter(ctx, "ExecSync"); err != nil {
		return cri.ExecResult{}, err
	}
	if len(cmd) == 0 {
		return cri.ExecResult{}, fmt.Errorf("exec in container %q: empty command: %w", id, cri.ErrInvalidArgument)
	}
	cfg, err := r.execConfig(id)
	if err != nil {
		return cri.ExecResult{}, err
	}
	res, err := r.opts.exec(ctx, cfg, slices.Clone(cmd), timeout)
	if err != nil {
		return cri.ExecResult{}, fmt.Errorf("exec in container %q: %w", id, err)
	}
	res.Stdout = capOutput(res.Stdout)
	res.Stderr = capOutput(res.Stderr)
	return res, nil
}

// execConfig returns the configuration of running container id, or
// ErrNotFound / ErrFailedPrecondition.
func (r *Runtime) execConfig(id string) (cri.ContainerConfig, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.containers[id]
	if !ok {
		return cri.ContainerConfig{}, fmt.Errorf("exec in container %q: %w", id, cri.ErrNotFound)
	}
	if c.status.State != cri.ContainerRunning {
		return cri.ContainerConfig{}, fmt.Errorf("exec in container %q: it is %s: %w", id, c.status.State, cri.ErrFailedPrecondition)
	}
	return c.cfg, nil
}

func capOutput(b []byte) []byte {
	if len(b) > cri.MaxExecOutput {
		return b[:cri.MaxExecOutput]
	}
	return b
}

// cloneConfig copies what the runtime keeps of cfg so the caller's later
// changes do not reach it.
func cloneConfig(cfg cri.ContainerConfig) cri.ContainerConfig {
	cfg.Command = slices.Clone(cfg.Command)
	cfg.Args = slices.Clone(cfg.Args)
	cfg.Envs = slices.Clone(cfg.Envs)
	cfg.Mounts = slices.Clone(cfg.Mounts)
	for i, m := range cfg.Mounts {
		if m.Image != nil {
			img := *m.Image
			img.Annotations = maps.Clone(img.Annotations)
			cfg.Mounts[i].Image = &img
		}
	}
	cfg.Devices = slices.Clone(cfg.Devices)
	cfg.Labels = maps.Clone(cfg.Labels)
	cfg.Annotations = maps.Clone(cfg.Annotations)
	cfg.Image.Annotations = maps.Clone(cfg.Image.Annotations)
	if cfg.Linux.Resources != nil {
		res := *cfg.Linux.Resources
		cfg.Linux.Resources = &res
	}
	return cfg
}
