package containerd

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/oci"
	"github.com/containerd/containerd/pkg/cap"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"

	"github.com/orkit/orkit/cri"
)

// shimGroupAnnotation makes the runc v2 shim serve every container with the
// same value from one shim process: one shim per pod, not per container.
const shimGroupAnnotation = "io.containerd.runc.v2.group"

// sandboxSpecOpts builds the pause container's OCI spec.
func sandboxSpecOpts(image containerd.Image, cfg cri.PodSandboxConfig, id, netns string) []oci.SpecOpts {
	ns := cfg.Linux.Security.NamespaceOptions
	opts := []oci.SpecOpts{oci.WithImageConfig(image), oci.WithRootFSReadonly(), oci.WithNoNewPrivileges,
		oci.WithAnnotations(map[string]string{shimGroupAnnotation: id})}
	if ns.NetworkMode() == cri.NamespaceNode {
		opts = append(opts, oci.WithHostNamespace(specs.NetworkNamespace), oci.WithHostNamespace(specs.UTSNamespace))
	} else {
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: netns}),
			oci.WithHostname(sandboxHostname(cfg)))
	}
	if ns.IPCMode() == cri.NamespaceNode {
		opts = append(opts, oci.WithHostNamespace(specs.IPCNamespace))
	}
	if ns.PIDMode() == cri.NamespaceNode {
		opts = append(opts, oci.WithHostNamespace(specs.PIDNamespace))
	}
	if cfg.Linux.CgroupParent != "" {
		opts = append(opts, oci.WithCgroup(filepath.Join(cfg.Linux.CgroupParent, id)))
	}
	if len(cfg.Linux.Sysctls) > 0 {
		opts = append(opts, withSysctls(cfg.Linux.Sysctls))
	}
	if u := cfg.Linux.Security.RunAsUser; u != nil {
		opts = append(opts, withUser(*u, cfg.Linux.Security.RunAsGroup, cfg.Linux.Security.SupplementalGroups))
	}
	return opts
}

// sandboxInfo is what a container needs from its sandbox to join it.
type sandboxInfo struct {
	id       string
	pid      uint32
	netns    string
	dir      string
	cfg      cri.PodSandboxConfig
	hostname string
}

// containerSpecOpts builds an app container's OCI spec: the image's config
// overridden by cfg, the sandbox's namespaces joined.
func (r *Runtime) containerSpecOpts(ctx context.Context, image containerd.Image, cfg cri.ContainerConfig, sb sandboxInfo, id string) ([]oci.SpecOpts, error) {
	var targetPID uint32
	if own := cfg.Linux.Security.NamespaceOptions; own.PID == cri.NamespaceTarget {
		tasks, err := r.taskStatuses(ctx, own.TargetID)
		if err != nil {
			return nil, err
		}
		t := tasks[own.TargetID]
		if t == nil || t.Pid == 0 {
			return nil, fmt.Errorf("pid namespace target %q is not running: %w", own.TargetID, cri.ErrFailedPrecondition)
		}
		targetPID = t.Pid
	}
	opts := []oci.SpecOpts{oci.WithImageConfig(image), oci.WithAnnotations(map[string]string{shimGroupAnnotation: sb.id})}
	switch {
	case len(cfg.Command) > 0:
		opts = append(opts, oci.WithProcessArgs(append(append([]string{}, cfg.Command...), cfg.Args...)...))
	case len(cfg.Args) > 0:
		opts = append(opts, oci.WithImageConfigArgs(image, cfg.Args))
	}
	if cfg.WorkingDir != "" {
		opts = append(opts, oci.WithProcessCwd(cfg.WorkingDir))
	}
	env := []string{"HOSTNAME=" + sb.hostname}
	for _, kv := range cfg.Envs {
		env = append(env, kv.Key+"="+kv.Value)
	}
	opts = append(opts, oci.WithEnv(env))
	if cfg.TTY {
		opts = append(opts, oci.WithTTY)
	}
	opts = append(opts, namespaceOpts(cfg.Linux.Security.NamespaceOptions, sb, targetPID)...)
	opts = append(opts, mountOpts(cfg.Mounts, sb, cfg.Linux.Security.ReadonlyRootfs))
	for _, d := range cfg.Devices {
		opts = append(opts, oci.WithDevices(d.HostPath, d.ContainerPath, d.Permissions))
	}
	if sb.cfg.Linux.CgroupParent != "" {
		opts = append(opts, oci.WithCgroup(filepath.Join(sb.cfg.Linux.CgroupParent, id)))
	}
	if res := cfg.Linux.Resources; res != nil {
		opts = append(opts, withResources(*res))
	}
	sec, err := r.securityOpts(cfg.Linux.Security)
	if err != nil {
		return nil, fmt.Errorf("container %q: %w", cfg.Metadata.Name, err)
	}
	return append(opts, sec...), nil
}

// namespaceOpts joins the sandbox's network, IPC, UTS and PID namespaces.
func namespaceOpts(own cri.NamespaceOptions, sb sandboxInfo, targetPID uint32) []oci.SpecOpts {
	proc := func(kind string) string { return fmt.Sprintf("/proc/%d/ns/%s", sb.pid, kind) }
	pod := sb.cfg.Linux.Security.NamespaceOptions
	var opts []oci.SpecOpts
	if pod.NetworkMode() == cri.NamespaceNode {
		opts = append(opts, oci.WithHostNamespace(specs.NetworkNamespace), oci.WithHostNamespace(specs.UTSNamespace))
	} else {
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: sb.netns}),
			oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.UTSNamespace, Path: proc("uts")}))
	}
	if pod.IPCMode() == cri.NamespaceNode {
		opts = append(opts, oci.WithHostNamespace(specs.IPCNamespace))
	} else {
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.IPCNamespace, Path: proc("ipc")}))
	}
	pid := own.PIDMode()
	if own.PID == "" {
		pid = pod.PIDMode()
	}
	switch pid {
	case cri.NamespaceNode:
		opts = append(opts, oci.WithHostNamespace(specs.PIDNamespace))
	case cri.NamespacePod:
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace, Path: proc("pid")}))
	case cri.NamespaceTarget:
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace,
			Path: fmt.Sprintf("/proc/%d/ns/pid", targetPID)}))
	}
	return opts
}

// mountOpts adds the user's bind mounts, the container's own cgroup at
// /sys/fs/cgroup (read-only; privileged containers get it writable), and
// the sandbox's hostname, hosts and resolv.conf (unless the user mounts
// those paths).
func mountOpts(ms []cri.Mount, sb sandboxInfo, readonlyRoot bool) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		taken := map[string]bool{}
		if !slices.ContainsFunc(ms, func(m cri.Mount) bool { return filepath.Clean(m.ContainerPath) == cgroupMountPath }) {
			// As containerd's CRI does: a program (and the conformance
			// suite) reads its limits there. On a cgroup v1 host runc
			// binds the container's own cgroup of each hierarchy; on a
			// v2 host the container gets a cgroup namespace, so the
			// cgroup2 mount's root is its own cgroup.
			s.Mounts = append(s.Mounts, specs.Mount{Destination: cgroupMountPath, Type: "cgroup", Source: "cgroup",
				Options: []string{"nosuid", "noexec", "nodev", "relatime", "ro"}})
			if unifiedCgroups() && s.Linux != nil &&
				!slices.ContainsFunc(s.Linux.Namespaces, func(n specs.LinuxNamespace) bool { return n.Type == specs.CgroupNamespace }) {
				s.Linux.Namespaces = append(s.Linux.Namespaces, specs.LinuxNamespace{Type: specs.CgroupNamespace})
			}
		}
		var rootProp string
		for _, m := range ms {
			opts := []string{"rbind"}
			switch m.Propagation {
			case cri.PropagationBidirectional:
				opts, rootProp = append(opts, "rshared"), "rshared"
			case cri.PropagationHostToContainer:
				opts = append(opts, "rslave")
				if rootProp == "" {
					rootProp = "rslave"
				}
			default:
				opts = append(opts, "rprivate")
			}
			if m.Readonly {
				opts = append(opts, "ro")
			} else {
				opts = append(opts, "rw")
			}
			s.Mounts = append(s.Mounts, specs.Mount{Destination: m.ContainerPath, Type: "bind", Source: m.HostPath, Options: opts})
			taken[filepath.Clean(m.ContainerPath)] = true
		}
		for _, f := range []string{"hostname", "hosts", "resolv.conf"} {
			dst := "/etc/" + f
			if taken[dst] {
				continue
			}
			mode := "rw"
			if readonlyRoot {
				mode = "ro"
			}
			s.Mounts = append(s.Mounts, specs.Mount{Destination: dst, Type: "bind", Source: filepath.Join(sb.dir, f),
				Options: []string{"rbind", "rprivate", mode}})
		}
		if rootProp != "" && s.Linux != nil {
			s.Linux.RootfsPropagation = rootProp
		}
		return nil
	}
}

// withResources applies cgroup limits.
func withResources(res cri.LinuxContainerResources) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		if s.Linux == nil {
			s.Linux = &specs.Linux{}
		}
		s.Linux.Resources = mergeResources(s.Linux.Resources, res)
		if res.OOMScoreAdj != 0 && s.Process != nil {
			adj := int(res.OOMScoreAdj)
			s.Process.OOMScoreAdj = &adj
		}
		return nil
	}
}

// mergeResources sets the fields res sets on base (nil: a new value).
func mergeResources(base *specs.LinuxResources, res cri.LinuxContainerResources) *specs.LinuxResources {
	if base == nil {
		base = &specs.LinuxResources{}
	}
	if base.CPU == nil {
		base.CPU = &specs.LinuxCPU{}
	}
	if res.CPUShares > 0 {
		v := uint64(res.CPUShares)
		base.CPU.Shares = &v
	}
	if res.CPUQuota != 0 {
		v := res.CPUQuota
		base.CPU.Quota = &v
	}
	if res.CPUPeriod > 0 {
		v := uint64(res.CPUPeriod)
		base.CPU.Period = &v
	}
	if res.CpusetCpus != "" {
		base.CPU.Cpus = res.CpusetCpus
	}
	if res.CpusetMems != "" {
		base.CPU.Mems = res.CpusetMems
	}
	if res.MemoryLimitInBytes > 0 {
		v := res.MemoryLimitInBytes
		base.Memory = &specs.LinuxMemory{Limit: &v}
		swap := v // no swap beyond the limit, as the kubelet does
		base.Memory.Swap = &swap
	}
	return base
}

// securityOpts maps the container's security context.
func (r *Runtime) securityOpts(sc cri.LinuxContainerSecurityContext) ([]oci.SpecOpts, error) {
	var opts []oci.SpecOpts
	if sc.Privileged {
		if !r.cfg.allowPrivileged {
			return nil, fmt.Errorf("privileged containers are not allowed on this runtime: %w", cri.ErrInvalidArgument)
		}
		// Every capability this process has, as containerd's CRI does: a
		// host (or a container running the node) whose bounding set lacks
		// some cannot grant them, and runc would refuse the whole set.
		caps, err := cap.Current()
		if err != nil {
			return nil, fmt.Errorf("privileged container: reading this process's capabilities: %w", err)
		}
		opts = append(opts, oci.WithCapabilities(caps), oci.WithHostDevices, oci.WithAllDevicesAllowed,
			oci.WithWriteableSysfs, oci.WithWriteableCgroupfs, oci.WithMaskedPaths(nil), oci.WithReadonlyPaths(nil))
	} else if c := sc.Capabilities; c != nil {
		add, err := capNames(c.Add)
		if err != nil {
			return nil, err
		}
		drop, err := capNames(c.Drop)
		if err != nil {
			return nil, err
		}
		for _, d := range drop {
			if d == "CAP_ALL" {
				opts = append(opts, oci.WithCapabilities(nil))
				drop = nil
				break
			}
		}
		opts = append(opts, oci.WithDroppedCapabilities(drop), oci.WithAddedCapabilities(add))
	}
	if sc.RunAsUser != nil {
		opts = append(opts, withUser(*sc.RunAsUser, sc.RunAsGroup, sc.SupplementalGroups))
	}
	if sc.ReadonlyRootfs {
		opts = append(opts, oci.WithRootFSReadonly())
	}
	if sc.NoNewPrivs {
		opts = append(opts, oci.WithNoNewPrivileges)
	}
	return opts, nil
}

// capNames normalizes capability names to CAP_X and rejects unknown ones.
func capNames(in []string) ([]string, error) {
	known := map[string]bool{"CAP_ALL": true}
	for _, k := range cap.Known() {
		known[k] = true
	}
	out := make([]string, 0, len(in))
	for _, c := range in {
		n := strings.ToUpper(c)
		if !strings.HasPrefix(n, "CAP_") {
			n = "CAP_" + n
		}
		if !known[n] {
			return nil, fmt.Errorf("unknown capability %q: %w", c, cri.ErrInvalidArgument)
		}
		out = append(out, n)
	}
	return out, nil
}

// withUser sets the process's uid, gid and supplementary groups.
func withUser(uid int64, gid *int64, groups []int64) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		if uid < 0 || uid > 1<<31 {
			return fmt.Errorf("uid %d out of range: %w", uid, cri.ErrInvalidArgument)
		}
		s.Process.User.UID = uint32(uid)
		s.Process.User.GID = 0
		if gid != nil {
			s.Process.User.GID = uint32(*gid)
		}
		s.Process.User.AdditionalGids = nil
		for _, g := range groups {
			s.Process.User.AdditionalGids = append(s.Process.User.AdditionalGids, uint32(g))
		}
		return nil
	}
}

// withSysctls sets namespaced sysctls, in key order.
func withSysctls(sysctls map[string]string) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		if s.Linux == nil {
			s.Linux = &specs.Linux{}
		}
		if s.Linux.Sysctl == nil {
			s.Linux.Sysctl = map[string]string{}
		}
		keys := make([]string, 0, len(sysctls))
		for k := range sysctls {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s.Linux.Sysctl[k] = sysctls[k]
		}
		return nil
	}
}

// cgroupMountPath is where containers see their cgroup.
const cgroupMountPath = "/sys/fs/cgroup"

// unifiedCgroups reports whether the host runs cgroup v2 only (its
// /sys/fs/cgroup is a cgroup2 file system).
var unifiedCgroups = sync.OnceValue(func() bool {
	var st unix.Statfs_t
	return unix.Statfs(cgroupMountPath, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
})
