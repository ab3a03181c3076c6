package kubelet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orkit/orkit/api/core"
)

// CFS constants, as the kubelet's.
const (
	cfsPeriod    = 100000 // µs
	minShares    = 2
	maxShares    = 262144
	sharesPerCPU = 1024
	minQuota     = 1000
)

func milliToShares(m int64) int64 {
	if m == 0 {
		return minShares
	}
	return min(max(m*sharesPerCPU/1000, minShares), maxShares)
}

func milliToQuota(m int64) int64 {
	if m == 0 {
		return 0
	}
	return max(m*cfsPeriod/1000, minQuota)
}

// v1Controllers are the cgroup v1 hierarchies a pod cgroup is made in (and
// removed from), and the hybrid layout's unified (v2) tree; runc creates
// the container cgroups below them.
var v1Controllers = []string{"cpu", "cpuacct", "memory", "pids", "cpuset", "blkio", "devices", "freezer", "hugetlb",
	"net_cls", "net_prio", "perf_event", "systemd", "unified"}

// cgroupManager makes the pod cgroups under the kubepods parent, one level
// per QoS class: kubepods/pod<uid> (Guaranteed),
// kubepods/burstable/pod<uid>, kubepods/besteffort/pod<uid>. It works on
// cgroup v1 (one hierarchy per controller; cpu and memory get limits) and
// v2 (one unified tree; cpu.max, cpu.weight, memory.max).
type cgroupManager struct {
	root string
	v2   bool
}

func newCgroupManager(root string) *cgroupManager {
	_, err := os.Stat(filepath.Join(root, "cgroup.controllers"))
	return &cgroupManager{root: root, v2: err == nil}
}

// PodCgroupName is the pod's cgroup path relative to a hierarchy root.
func PodCgroupName(pod *core.Pod) string {
	uid := "pod" + string(pod.UID)
	switch core.ComputePodQOS(pod) {
	case core.PodQOSGuaranteed:
		return filepath.Join("kubepods", uid)
	case core.PodQOSBurstable:
		return filepath.Join("kubepods", "burstable", uid)
	}
	return filepath.Join("kubepods", "besteffort", uid)
}

// podLimits are the pod cgroup's values.
type podLimits struct {
	shares, quota, memory int64 // memory 0: unlimited
}

func limitsOf(pod *core.Pod) podLimits {
	var reqMilli, limMilli, mem int64
	cpuLimited, memLimited := true, true
	for _, c := range pod.Spec.Containers {
		if q, ok := c.Resources.Requests[core.ResourceCPU]; ok {
			reqMilli += q.MilliValue()
		}
		if q, ok := c.Resources.Limits[core.ResourceCPU]; ok {
			limMilli += q.MilliValue()
		} else {
			cpuLimited = false
		}
		if q, ok := c.Resources.Limits[core.ResourceMemory]; ok {
			mem += q.Value()
		} else {
			memLimited = false
		}
	}
	l := podLimits{shares: milliToShares(reqMilli)}
	if cpuLimited && len(pod.Spec.Containers) > 0 {
		l.quota = milliToQuota(limMilli)
	}
	if memLimited && len(pod.Spec.Containers) > 0 {
		l.memory = mem
	}
	return l
}

// ensureCgroup makes the pod cgroup with its limits and records it as
// the sandbox's cgroup parent.
func (k *Kubelet) ensureCgroup(pod *core.Pod, ps *podState) error {
	if k.cgroups == nil {
		return nil
	}
	name := PodCgroupName(pod)
	if err := k.cgroups.ensure(name, limitsOf(cgroupView(pod, ps))); err != nil {
		return fmt.Errorf("%w: pod %s: %w", ErrCgroup, podKey(pod), err)
	}
	ps.cgroupParent = "/" + name
	return nil
}

// removeCgroup removes the pod's cgroup under every QoS parent (an
// orphan's spec, and so its class, is unknown).
func (k *Kubelet) removeCgroup(pod *core.Pod, ps *podState) error {
	if k.cgroups == nil {
		return nil
	}
	uid := "pod" + string(pod.UID)
	for _, name := range []string{filepath.Join("kubepods", uid), filepath.Join("kubepods", "burstable", uid),
		filepath.Join("kubepods", "besteffort", uid)} {
		if err := k.cgroups.remove(name); err != nil {
			return fmt.Errorf("%w: pod %s: %w", ErrCgroup, podKey(pod), err)
		}
	}
	ps.cgroupParent = ""
	return nil
}

// RemovePodCgroups removes the cgroups of the pod with uid under the
// cgroup root (every QoS parent, every v1 hierarchy or the v2 tree) and
// the container cgroups runc left below them; cgroups still holding
// processes are left, with an error. The kubelet removes a pod's cgroup
// when the pod ends; this is for whoever tears a node down after its
// kubelet stopped (the minicluster does on stop).
func RemovePodCgroups(root, uid string) error {
	m := newCgroupManager(root)
	var errs []error
	for _, name := range []string{filepath.Join("kubepods", "pod"+uid), filepath.Join("kubepods", "burstable", "pod"+uid),
		filepath.Join("kubepods", "besteffort", "pod"+uid)} {
		errs = append(errs, m.remove(name))
	}
	return errors.Join(errs...)
}

func (m *cgroupManager) ensure(name string, l podLimits) error {
	if m.v2 {
		return m.ensureV2(name, l)
	}
	for _, ctrl := range []string{"cpu", "cpuacct", "memory", "pids"} {
		base := filepath.Join(m.root, ctrl)
		if _, err := os.Stat(base); err != nil {
			continue
		}
		if err := os.MkdirAll(filepath.Join(base, name), 0o755); err != nil {
			return err
		}
	}
	cpu := filepath.Join(m.root, "cpu", name)
	if err := writeFile(filepath.Join(cpu, "cpu.shares"), l.shares); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(cpu, "cpu.cfs_period_us"), cfsPeriod); err != nil {
		return err
	}
	quota := l.quota
	if quota == 0 {
		quota = -1
	}
	if err := writeFile(filepath.Join(cpu, "cpu.cfs_quota_us"), quota); err != nil {
		return err
	}
	mem := l.memory
	if mem == 0 {
		mem = -1
	}
	return writeFile(filepath.Join(m.root, "memory", name, "memory.limit_in_bytes"), mem)
}

func (m *cgroupManager) ensureV2(name string, l podLimits) error {
	parts := strings.Split(name, "/")
	dir := m.root
	for _, p := range parts {
		_ = os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+cpu +memory +pids"), 0o644)
		dir = filepath.Join(dir, p)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	weight := 1 + ((l.shares-2)*9999)/262142
	if err := writeFile(filepath.Join(dir, "cpu.weight"), weight); err != nil {
		return err
	}
	max := "max " + strconv.Itoa(cfsPeriod)
	if l.quota > 0 {
		max = strconv.FormatInt(l.quota, 10) + " " + strconv.Itoa(cfsPeriod)
	}
	if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(max), 0o644); err != nil {
		return err
	}
	mem := "max"
	if l.memory > 0 {
		mem = strconv.FormatInt(l.memory, 10)
	}
	return os.WriteFile(filepath.Join(dir, "memory.max"), []byte(mem), 0o644)
}

// remove removes the pod cgroup (and the container cgroups runc left below
// it) in every hierarchy, retrying while the kernel still reports it busy.
func (m *cgroupManager) remove(name string) error {
	var dirs []string
	if m.v2 {
		dirs = []string{filepath.Join(m.root, name)}
	} else {
		for _, ctrl := range v1Controllers {
			dirs = append(dirs, filepath.Join(m.root, ctrl, name))
		}
	}
	var errs []error
	for _, d := range dirs {
		if err := rmdirTree(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rmdirTree removes a cgroup directory and its child cgroups, deepest first.
func rmdirTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := rmdirTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	var rerr error
	for i := 0; i < 50; i++ {
		rerr = syscall.Rmdir(dir)
		if rerr == nil || errors.Is(rerr, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(rerr, syscall.EBUSY) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the kernel frees a cgroup shortly after its last task exits
	}
	return fmt.Errorf("rmdir %s: %w", dir, rerr)
}

func writeFile(path string, v int64) error {
	return os.WriteFile(path, []byte(strconv.FormatInt(v, 10)), 0o644)
}
