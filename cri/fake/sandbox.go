package fake

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/orkit/orkit/cri"
)

// sandbox is one simulated pod sandbox.
type sandbox struct {
	seq    uint64
	status cri.PodSandboxStatus
}

// view is the sandbox as ListPodSandbox reports it; maps are shared, so
// callers clone before handing it out.
func (s *sandbox) view() cri.PodSandbox {
	st := s.status
	return cri.PodSandbox{ID: st.ID, Metadata: st.Metadata, State: st.State, CreatedAt: st.CreatedAt,
		Labels: st.Labels, Annotations: st.Annotations}
}

// RunPodSandbox records a READY sandbox. Errors: cri.ErrInvalidArgument,
// cri.ErrAlreadyExists (same name, namespace, uid and attempt),
// cri.ErrImageNotFound (the pause image is not on the node).
func (r *Runtime) RunPodSandbox(ctx context.Context, cfg cri.PodSandboxConfig) (string, error) {
	if err := r.enter(ctx, "RunPodSandbox"); err != nil {
		return "", err
	}
	if err := cfg.Validate(); err != nil {
		return "", fmt.Errorf("run sandbox: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.pauseImage != "" {
		if _, err := r.resolveLocked(r.opts.pauseImage); err != nil {
			return "", fmt.Errorf("run sandbox %q: pause image: %w", cfg.Metadata.Name, err)
		}
	}
	for _, s := range r.sandboxes {
		if s.status.Metadata == cfg.Metadata {
			return "", fmt.Errorf("sandbox %s/%s (uid %s, attempt %d) is %s: %w", cfg.Metadata.Namespace,
				cfg.Metadata.Name, cfg.Metadata.UID, cfg.Metadata.Attempt, s.status.ID, cri.ErrAlreadyExists)
		}
	}
	id := r.newIDLocked('s')
	netns := ""
	if cfg.Linux.Security.NamespaceOptions.NetworkMode() != cri.NamespaceNode {
		netns = "/run/netns/fake-" + id
	}
	r.sandboxes[id] = &sandbox{seq: r.seq, status: cri.PodSandboxStatus{
		ID: id, Metadata: cfg.Metadata, State: cri.SandboxReady, CreatedAt: time.Now(),
		NetworkNamespacePath: netns, NamespaceOptions: cfg.Linux.Security.NamespaceOptions,
		Labels: maps.Clone(cfg.Labels), Annotations: maps.Clone(cfg.Annotations),
	}}
	return id, nil
}

// StopPodSandbox kills the sandbox's running containers (exit code 137)
// and makes it NOTREADY. A missing or stopped sandbox is fine.
func (r *Runtime) StopPodSandbox(ctx context.Context, id string) error {
	if err := r.enter(ctx, "StopPodSandbox"); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[id]
	if !ok {
		return nil
	}
	for _, c := range r.containers {
		if c.status.PodSandboxID == id {
			r.exitLocked(c, 137, cri.ReasonError)
		}
	}
	s.status.State = cri.SandboxNotReady
	return nil
}

// RemovePodSandbox removes the sandbox and its containers (killing running
// ones). A missing sandbox is fine.
func (r *Runtime) RemovePodSandbox(ctx context.Context, id string) error {
	if err := r.enter(ctx, "RemovePodSandbox"); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.sandboxes[id]; !ok {
		return nil
	}
	for _, c := range r.sortedContainersLocked(cri.ContainerFilter{PodSandboxID: id}) {
		r.removeContainerLocked(c)
	}
	delete(r.sandboxes, id)
	return nil
}

// PodSandboxStatus returns the sandbox's status or cri.ErrNotFound.
func (r *Runtime) PodSandboxStatus(ctx context.Context, id string) (cri.PodSandboxStatus, error) {
	if err := r.enter(ctx, "PodSandboxStatus"); err != nil {
		return cri.PodSandboxStatus{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[id]
	if !ok {
		return cri.PodSandboxStatus{}, fmt.Errorf("sandbox %q: %w", id, cri.ErrNotFound)
	}
	st := s.status
	st.Labels, st.Annotations = maps.Clone(st.Labels), maps.Clone(st.Annotations)
	st.Network.AdditionalIPs = slices.Clone(st.Network.AdditionalIPs)
	return st, nil
}

// ListPodSandbox returns the matching sandboxes in creation order.
func (r *Runtime) ListPodSandbox(ctx context.Context, f cri.PodSandboxFilter) ([]cri.PodSandbox, error) {
	if err := r.enter(ctx, "ListPodSandbox"); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var found []*sandbox
	for _, s := range r.sandboxes {
		if f.Matches(s.view()) {
			found = append(found, s)
		}
	}
	slices.SortFunc(found, func(a, b *sandbox) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]cri.PodSandbox, 0, len(found))
	for _, s := range found {
		v := s.view()
		v.Labels, v.Annotations = maps.Clone(v.Labels), maps.Clone(v.Annotations)
		out = append(out, v)
	}
	return out, nil
}

// UpdatePodSandboxNetwork records the sandbox's pod IPs.
func (r *Runtime) UpdatePodSandboxNetwork(ctx context.Context, id string, n cri.PodSandboxNetworkStatus) error {
	if err := r.enter(ctx, "UpdatePodSandboxNetwork"); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.sandboxes[id]
	if !ok {
		return fmt.Errorf("sandbox %q: %w", id, cri.ErrNotFound)
	}
	n.AdditionalIPs = slices.Clone(n.AdditionalIPs)
	s.status.Network = n
	return nil
}
