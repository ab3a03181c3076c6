package containerd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	containerd "github.com/containerd/containerd"
	tasksapi "github.com/containerd/containerd/api/services/tasks/v1"
	tasktypes "github.com/containerd/containerd/api/types/task"
	"github.com/containerd/containerd/cio"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/errdefs"

	"github.com/orkit/orkit/cri"
)

func (r *Runtime) netnsPath(id string) string { return filepath.Join(r.cfg.stateDir, netnsDir, id) }
func (r *Runtime) sandboxDir(id string) string {
	return filepath.Join(r.cfg.stateDir, sandboxesDir, id)
}

// RunPodSandbox creates the sandbox's files and network namespace, then a
// pause container holding the pod's namespaces, and starts it. On error
// every step already taken is undone on a fresh context.
func (r *Runtime) RunPodSandbox(ctx context.Context, cfg cri.PodSandboxConfig) (_ string, retErr error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	if cfg.Linux.Security.Privileged && !r.cfg.allowPrivileged {
		return "", fmt.Errorf("sandbox %s/%s: privileged pods are not allowed on this runtime: %w",
			cfg.Metadata.Namespace, cfg.Metadata.Name, cri.ErrInvalidArgument)
	}
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return "", err
	}
	id := sandboxID(cfg.Metadata)
	defer r.locks.lock(id)()
	if _, err := r.client.ContainerService().Get(ctx, id); err == nil {
		return "", fmt.Errorf("sandbox %s/%s attempt %d (%s): %w", cfg.Metadata.Namespace, cfg.Metadata.Name, cfg.Metadata.Attempt, id, cri.ErrAlreadyExists)
	} else if !errdefs.IsNotFound(err) {
		return "", mapErr(err, "look up sandbox "+id)
	}
	image, err := r.client.GetImage(ctx, r.cfg.pauseImage)
	if err != nil {
		return "", fmt.Errorf("pause image %s: %v: %w", r.cfg.pauseImage, err, cri.ErrImageNotFound)
	}
	// No container has this ID (checked under its lock): whatever a crash
	// left under it is garbage.
	if err := r.removeSandboxFiles(ctx, id); err != nil {
		return "", err
	}
	dir := r.sandboxDir(id)
	if err := writeSandboxFiles(dir, cfg); err != nil {
		return "", err
	}
	defer func() {
		if retErr != nil {
			os.RemoveAll(dir)
		}
	}()
	netns := ""
	if cfg.Linux.Security.NamespaceOptions.NetworkMode() == cri.NamespacePod {
		netns = r.netnsPath(id)
		if err := createNetNS(netns); err != nil {
			return "", fmt.Errorf("sandbox %s: %w", id, err)
		}
		defer func() {
			if retErr != nil {
				removeNetNS(netns)
			}
		}()
	}
	ctr, err := r.newSandboxContainer(ctx, id, image, cfg, netns)
	if err != nil {
		return "", err
	}
	defer func() {
		if retErr != nil {
			cctx, cancel := cleanupCtx(r.cfg.namespace)
			defer cancel()
			ctr.Delete(cctx, containerd.WithSnapshotCleanup)
			r.forget(id)
		}
	}()
	task, err := ctr.NewTask(ctx, cio.NullIO)
	if err != nil {
		return "", mapErr(err, "create sandbox task "+id)
	}
	defer func() {
		if retErr != nil {
			cctx, cancel := cleanupCtx(r.cfg.namespace)
			defer cancel()
			task.Delete(cctx, containerd.WithProcessKill)
		}
	}()
	if err := task.Start(ctx); err != nil {
		return "", mapErr(err, "start sandbox "+id)
	}
	return id, nil
}

// newSandboxContainer creates the pause container of sandbox id.
func (r *Runtime) newSandboxContainer(ctx context.Context, id string, image containerd.Image, cfg cri.PodSandboxConfig, netns string) (containerd.Container, error) {
	ext, err := marshalRecord(typeSandbox, sandboxRecord{Config: cfg, NetNSPath: netns})
	if err != nil {
		return nil, err
	}
	labels := map[string]string{
		labelKind: kindSandbox, labelName: cfg.Metadata.Name, labelPodNS: cfg.Metadata.Namespace,
		labelPodUID: cfg.Metadata.UID, labelAttempt: strconv.FormatUint(uint64(cfg.Metadata.Attempt), 10),
	}
	r.remember(id, objKind{sandbox: true, sandboxID: id})
	ctr, err := r.client.NewContainer(ctx, id,
		containerd.WithImage(image),
		r.runtimeOpt(),
		containerd.WithSnapshotter(r.cfg.snapshotter),
		containerd.WithNewSnapshot(id, image),
		containerd.WithNewSpec(sandboxSpecOpts(image, cfg, id, netns)...),
		containerd.WithContainerLabels(labels),
		containerd.WithContainerExtension(extSandbox, ext),
	)
	if err != nil {
		r.forget(id)
		return nil, mapErr(err, "create sandbox container "+id)
	}
	return ctr, nil
}

// writeSandboxFiles writes the sandbox's hostname, hosts and resolv.conf,
// which its containers mount.
func writeSandboxFiles(dir string, cfg cri.PodSandboxConfig) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sandbox dir: %w", err)
	}
	hostname := sandboxHostname(cfg)
	hosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
	resolv, err := resolvConf(cfg.DNSConfig)
	if err != nil {
		return err
	}
	if cfg.Linux.Security.NamespaceOptions.NetworkMode() == cri.NamespaceNode {
		if b, err := os.ReadFile("/etc/hosts"); err == nil {
			hosts = string(b)
		}
	}
	for name, content := range map[string]string{"hostname": hostname + "\n", "hosts": hosts, "resolv.conf": resolv} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return fmt.Errorf("sandbox %s: %w", name, err)
		}
	}
	return nil
}

func sandboxHostname(cfg cri.PodSandboxConfig) string {
	if cfg.Linux.Security.NamespaceOptions.NetworkMode() == cri.NamespaceNode {
		h, _ := os.Hostname()
		return h
	}
	if cfg.Hostname != "" {
		return cfg.Hostname
	}
	return cfg.Metadata.Name
}

// resolvConf renders dns, or returns the host's resolv.conf when dns is nil.
func resolvConf(dns *cri.DNSConfig) (string, error) {
	if dns == nil {
		b, err := os.ReadFile("/etc/resolv.conf")
		if err != nil && !os.IsNotExist(err) {
			return "", fmt.Errorf("host resolv.conf: %w", err)
		}
		return string(b), nil
	}
	var b strings.Builder
	for _, s := range dns.Servers {
		fmt.Fprintf(&b, "nameserver %s\n", s)
	}
	if len(dns.Searches) > 0 {
		fmt.Fprintf(&b, "search %s\n", strings.Join(dns.Searches, " "))
	}
	if len(dns.Options) > 0 {
		fmt.Fprintf(&b, "options %s\n", strings.Join(dns.Options, " "))
	}
	return b.String(), nil
}

// StopPodSandbox kills the sandbox's containers and its pause process. The
// network namespace stays for the caller's network teardown.
func (r *Runtime) StopPodSandbox(ctx context.Context, id string) error {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return err
	}
	defer r.locks.lock(id)()
	ctrs, err := r.listRecords(ctx, kindContainer, "", id)
	if err != nil {
		return err
	}
	for _, c := range ctrs {
		if err := r.StopContainer(ctx, c.ID, 0); err != nil {
			return fmt.Errorf("stop sandbox %s: %w", id, err)
		}
	}
	task, err := r.loadTask(ctx, id)
	if err != nil || task == nil {
		return err
	}
	if _, err := task.Delete(ctx, containerd.WithProcessKill); err != nil && !errdefs.IsNotFound(err) {
		return mapErr(err, "stop sandbox "+id)
	}
	return nil
}

// RemovePodSandbox removes the sandbox's containers, its pause container,
// image volumes, network namespace and files. A missing sandbox succeeds (leftover
// network namespace and files of that ID are still removed).
func (r *Runtime) RemovePodSandbox(ctx context.Context, id string) error {
	if err := r.StopPodSandbox(ctx, id); err != nil && !isNotFound(err) {
		return err
	}
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return err
	}
	defer r.locks.lock(id)()
	ctrs, err := r.listRecords(ctx, kindContainer, "", id)
	if err != nil {
		return err
	}
	for _, c := range ctrs {
		if err := r.RemoveContainer(ctx, c.ID); err != nil {
			return fmt.Errorf("remove sandbox %s: %w", id, err)
		}
	}
	if err := r.deleteContainer(ctx, id); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	if err := r.removeSandboxFiles(ctx, id); err != nil {
		return err
	}
	r.forget(id)
	return nil
}

// removeSandboxFiles releases the image volumes and removes the network
// namespace and files of sandbox id.
func (r *Runtime) removeSandboxFiles(ctx context.Context, id string) error {
	if err := r.releaseImageVolumes(ctx, id); err != nil {
		return fmt.Errorf("remove sandbox %s: %w", id, err)
	}
	if err := removeNetNS(r.netnsPath(id)); err != nil {
		return err
	}
	if err := os.RemoveAll(r.sandboxDir(id)); err != nil {
		return fmt.Errorf("remove sandbox %s files: %w", id, err)
	}
	return nil
}

// deleteContainer deletes a containerd container and its snapshot; a
// missing one is not an error.
func (r *Runtime) deleteContainer(ctx context.Context, id string) error {
	ctr, err := r.client.LoadContainer(ctx, id)
	if errdefs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return mapErr(err, "load "+id)
	}
	if err := ctr.Delete(ctx, containerd.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		return mapErr(err, "delete "+id)
	}
	return nil
}

// PodSandboxStatus reports the sandbox.
func (r *Runtime) PodSandboxStatus(ctx context.Context, id string) (cri.PodSandboxStatus, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return cri.PodSandboxStatus{}, err
	}
	c, err := r.client.ContainerService().Get(ctx, id)
	if err != nil || c.Labels[labelKind] != kindSandbox {
		if err == nil || errdefs.IsNotFound(err) {
			return cri.PodSandboxStatus{}, fmt.Errorf("sandbox %q: %w", id, cri.ErrNotFound)
		}
		return cri.PodSandboxStatus{}, mapErr(err, "sandbox "+id)
	}
	tasks, err := r.taskStatuses(ctx, id)
	if err != nil {
		return cri.PodSandboxStatus{}, err
	}
	return sandboxStatusOf(c, tasks[id])
}

func sandboxStatusOf(c containers.Container, t *tasktypes.Process) (cri.PodSandboxStatus, error) {
	rec, err := sandboxRecordOf(c)
	if err != nil {
		return cri.PodSandboxStatus{}, fmt.Errorf("sandbox %s: corrupt record: %w", c.ID, err)
	}
	state := cri.SandboxNotReady
	if t != nil && t.Status == tasktypes.Status_RUNNING {
		state = cri.SandboxReady
	}
	var extra []string
	if s := c.Labels[labelPodIPs]; s != "" {
		extra = strings.Split(s, ",")
	}
	return cri.PodSandboxStatus{
		ID: c.ID, Metadata: rec.Config.Metadata, State: state, CreatedAt: c.CreatedAt,
		NetworkNamespacePath: rec.NetNSPath,
		Network:              cri.PodSandboxNetworkStatus{IP: c.Labels[labelPodIP], AdditionalIPs: extra},
		NamespaceOptions:     rec.Config.Linux.Security.NamespaceOptions,
		Labels:               copyLabels(rec.Config.Labels), Annotations: copyLabels(rec.Config.Annotations),
	}, nil
}

// ListPodSandbox lists the sandboxes matching f, oldest first.
func (r *Runtime) ListPodSandbox(ctx context.Context, f cri.PodSandboxFilter) ([]cri.PodSandbox, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := r.listRecords(ctx, kindSandbox, f.ID, "")
	if err != nil {
		return nil, err
	}
	tasks, err := r.taskStatuses(ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]cri.PodSandbox, 0, len(recs))
	for _, c := range recs {
		st, err := sandboxStatusOf(c, tasks[c.ID])
		if err != nil {
			r.cfg.log.Warn("skipping sandbox with a corrupt record", "id", c.ID, "err", err)
			continue
		}
		s := cri.PodSandbox{ID: st.ID, Metadata: st.Metadata, State: st.State, CreatedAt: st.CreatedAt,
			Labels: st.Labels, Annotations: st.Annotations}
		if f.Matches(s) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// UpdatePodSandboxNetwork records the pod IPs in the sandbox's labels.
func (r *Runtime) UpdatePodSandboxNetwork(ctx context.Context, id string, n cri.PodSandboxNetworkStatus) error {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return err
	}
	defer r.locks.lock(id)()
	c, err := r.client.ContainerService().Get(ctx, id)
	if err != nil || c.Labels[labelKind] != kindSandbox {
		if err == nil || errdefs.IsNotFound(err) {
			return fmt.Errorf("sandbox %q: %w", id, cri.ErrNotFound)
		}
		return mapErr(err, "sandbox "+id)
	}
	for _, ip := range append([]string{n.IP}, n.AdditionalIPs...) {
		if strings.ContainsAny(ip, ", \n") {
			return fmt.Errorf("sandbox %s: bad pod IP %q: %w", id, ip, cri.ErrInvalidArgument)
		}
	}
	c.Labels = map[string]string{labelPodIP: n.IP, labelPodIPs: strings.Join(n.AdditionalIPs, ",")}
	_, err = r.client.ContainerService().Update(ctx, c, "labels."+labelPodIP, "labels."+labelPodIPs)
	return mapErr(err, "record network of sandbox "+id)
}

// listRecords lists containerd containers of one kind, optionally one ID or
// those of one sandbox.
func (r *Runtime) listRecords(ctx context.Context, kind, id, sandbox string) ([]containers.Container, error) {
	filter := fmt.Sprintf("labels.%q==%s", labelKind, kind)
	if id != "" {
		filter += fmt.Sprintf(",id==%s", id)
	}
	if sandbox != "" {
		filter += fmt.Sprintf(",labels.%q==%s", labelSandboxID, sandbox)
	}
	cs, err := r.client.ContainerService().List(ctx, filter)
	if err != nil {
		return nil, mapErr(err, "list "+kind+"s")
	}
	return cs, nil
}

// taskStatuses returns the tasks by container ID (one task if id is set).
func (r *Runtime) taskStatuses(ctx context.Context, id string) (map[string]*tasktypes.Process, error) {
	out := map[string]*tasktypes.Process{}
	if id != "" {
		resp, err := r.client.TaskService().Get(ctx, &tasksapi.GetRequest{ContainerID: id})
		if errdefs.IsNotFound(errdefs.FromGRPC(err)) {
			return out, nil
		}
		if err != nil {
			return nil, mapErr(errdefs.FromGRPC(err), "task "+id)
		}
		out[id] = resp.Process
		return out, nil
	}
	resp, err := r.client.TaskService().List(ctx, &tasksapi.ListTasksRequest{})
	if err != nil {
		return nil, mapErr(errdefs.FromGRPC(err), "list tasks")
	}
	for _, t := range resp.Tasks {
		out[t.ID] = t
	}
	return out, nil
}

// loadTask returns the task of container id; nil, nil when the container
// or its task does not exist.
func (r *Runtime) loadTask(ctx context.Context, id string) (containerd.Task, error) {
	ctr, err := r.client.LoadContainer(ctx, id)
	if errdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err, "load "+id)
	}
	task, err := ctr.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err, "task of "+id)
	}
	return task, nil
}

func (r *Runtime) remember(id string, k objKind) {
	r.mu.Lock()
	r.kinds[id] = k
	r.mu.Unlock()
}

func (r *Runtime) forget(id string) {
	r.mu.Lock()
	delete(r.kinds, id)
	r.mu.Unlock()
}

// timeOrZero converts an exit timestamp.
func timeOrZero(t interface{ AsTime() time.Time }, valid bool) time.Time {
	if !valid {
		return time.Time{}
	}
	return t.AsTime()
}
