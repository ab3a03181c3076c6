package kubelet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/api/stats"
)

// UsageFunc returns the usage a simulated node reports for one container
// of a pod: cpu as a rate (cores, e.g. "250m"), memory as bytes in use.
// Missing entries mean zero. It is called from Summary, possibly
// concurrently, and must be safe for that.
type UsageFunc func(pod *core.Pod, container string) core.ResourceList

// usageMeter turns a simulated node's usage rates into the cumulative CPU
// figures a real cgroup reports, integrating each container's rate over
// the time between Summary calls. Safe for concurrent use.
type usageMeter struct {
	mu   sync.Mutex
	last map[string]meterSample // by pod UID/container
}

type meterSample struct {
	at      time.Time
	totalNs uint64
}

// advance adds milliCores over the time since key's last sample and
// returns the cumulative core-nanoseconds at now.
func (m *usageMeter) advance(key string, milliCores int64, now time.Time) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil {
		m.last = map[string]meterSample{}
	}
	s, ok := m.last[key]
	if ok && now.After(s.at) {
		s.totalNs += uint64(milliCores) * uint64(now.Sub(s.at).Nanoseconds()) / 1000
	}
	s.at = now
	m.last[key] = s
	return s.totalNs
}

// Summary returns the node's and its pods' CPU and memory figures, as
// the kubelet's /stats/summary reports them: from the pod and container
// cgroups on a real node (CgroupRoot set), from Config.SyntheticUsage on
// a simulated one. Containers without figures (not started, cgroup gone)
// are left out.
func (k *Kubelet) Summary(ctx context.Context) (*stats.Summary, error) {
	now := time.Now()
	out := &stats.Summary{Node: stats.NodeStats{NodeName: k.cfg.NodeName, StartTime: meta.NewTime(k.started)}}
	var nodeCPU, nodeMem uint64
	for _, sp := range k.statPods() {
		pod := sp.pod
		ps := stats.PodStats{PodRef: stats.PodReference{Name: pod.Name, Namespace: pod.Namespace, UID: string(pod.UID)}}
		if sp.start != nil {
			ps.StartTime = *sp.start
		}
		var podCPU, podMem uint64
		for _, c := range pod.Spec.Containers {
			cpu, mem, ok := k.containerUsage(sp, c.Name, now)
			if !ok {
				continue
			}
			podCPU, podMem = podCPU+cpu, podMem+mem
			ps.Containers = append(ps.Containers, stats.ContainerStats{Name: c.Name, StartTime: ps.StartTime,
				CPU: cpuStats(now, cpu), Memory: memStats(now, mem)})
		}
		if len(ps.Containers) == 0 {
			continue
		}
		ps.CPU, ps.Memory = cpuStats(now, podCPU), memStats(now, podMem)
		nodeCPU, nodeMem = nodeCPU+podCPU, nodeMem+podMem
		out.Pods = append(out.Pods, ps)
	}
	if k.cgroups != nil {
		var err error
		if nodeCPU, nodeMem, err = hostUsage(); err != nil {
			return nil, fmt.Errorf("node %s usage: %w", k.cfg.NodeName, err)
		}
	}
	out.Node.CPU, out.Node.Memory = cpuStats(now, nodeCPU), memStats(now, nodeMem)
	return out, ctx.Err()
}

func cpuStats(now time.Time, ns uint64) *stats.CPUStats {
	return &stats.CPUStats{Time: meta.NewTime(now), UsageCoreNanoSeconds: &ns}
}

func memStats(now time.Time, b uint64) *stats.MemoryStats {
	return &stats.MemoryStats{Time: meta.NewTime(now), UsageBytes: &b, WorkingSetBytes: &b}
}

// statPod is what Summary reads of a running pod: the worker's pod for its
// identity and containers (shared, read-only) and, from its latest status,
// the start time and the container statuses (for container IDs).
type statPod struct {
	pod        *core.Pod
	start      *meta.Time
	containers []core.ContainerStatus
}

// statPods returns the pods this kubelet runs whose latest status (the
// status manager's, else the pod's own) is Running. Nothing is copied:
// a scrape of every node must not duplicate every pod.
func (k *Kubelet) statPods() []statPod {
	k.mu.Lock()
	var pods []*core.Pod
	for _, w := range k.workers {
		if p, removed := w.latest(); p != nil && !removed {
			pods = append(pods, p)
		}
	}
	k.mu.Unlock()
	out := make([]statPod, 0, len(pods))
	for _, p := range pods {
		sp := statPod{pod: p, start: p.Status.StartTime, containers: p.Status.ContainerStatuses}
		phase := p.Status.Phase
		k.status.view(p.UID, func(st *core.PodStatus) {
			phase, sp.start, sp.containers = st.Phase, st.StartTime, st.ContainerStatuses
		})
		if phase == core.PodRunning {
			out = append(out, sp)
		}
	}
	return out
}

// containerUsage returns a container's cumulative CPU (core-nanoseconds)
// and working set (bytes).
func (k *Kubelet) containerUsage(sp statPod, name string, now time.Time) (uint64, uint64, bool) {
	if k.cgroups == nil {
		if k.cfg.SyntheticUsage == nil {
			return 0, 0, false
		}
		u := k.cfg.SyntheticUsage(sp.pod, name)
		cpu, mem := u[core.ResourceCPU], u[core.ResourceMemory]
		return k.meter.advance(string(sp.pod.UID)+"/"+name, cpu.MilliValue(), now), uint64(max(mem.Value(), 0)), true
	}
	for _, cs := range sp.containers {
		if cs.Name != name || cs.State.Running == nil {
			continue
		}
		_, id, ok := strings.Cut(cs.ContainerID, "://")
		if !ok {
			return 0, 0, false
		}
		return k.cgroups.usage(filepath.Join(PodCgroupName(sp.pod), id))
	}
	return 0, 0, false
}

// usage reads a cgroup's cumulative CPU time and working set.
func (m *cgroupManager) usage(name string) (cpu, mem uint64, ok bool) {
	if m.v2 {
		dir := filepath.Join(m.root, name)
		usec, err1 := readKeyed(filepath.Join(dir, "cpu.stat"), "usage_usec")
		cur, err2 := readUint(filepath.Join(dir, "memory.current"))
		if err1 != nil || err2 != nil {
			return 0, 0, false
		}
		inactive, _ := readKeyed(filepath.Join(dir, "memory.stat"), "inactive_file")
		return usec * 1000, cur - min(inactive, cur), true
	}
	ns, err1 := readUint(filepath.Join(m.root, "cpuacct", name, "cpuacct.usage"))
	cur, err2 := readUint(filepath.Join(m.root, "memory", name, "memory.usage_in_bytes"))
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	inactive, _ := readKeyed(filepath.Join(m.root, "memory", name, "memory.stat"), "total_inactive_file")
	return ns, cur - min(inactive, cur), true
}

func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}

// readKeyed reads the value of key in a "key value" per line file.
func readKeyed(path, key string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == key {
			return strconv.ParseUint(f[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no %s", path, key)
}

// hostUsage reads the host's cumulative CPU time (all CPUs, non-idle, from
// /proc/stat) and memory in use (MemTotal - MemAvailable).
func hostUsage() (cpu, mem uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var ticks uint64
	for i, s := range f[1:] {
		v, _ := strconv.ParseUint(s, 10, 64)
		if i != 3 && i != 4 { // idle, iowait
			ticks += v
		}
	}
	const userHZ = 100
	total, err1 := readKeyed("/proc/meminfo", "MemTotal:")
	avail, err2 := readKeyed("/proc/meminfo", "MemAvailable:")
	if err1 != nil || err2 != nil {
		return ticks * (1e9 / userHZ), 0, nil
	}
	return ticks * (1e9 / userHZ), (total - min(avail, total)) * 1024, nil
}

// serveSummary answers GET /stats/summary.
func (k *Kubelet) serveSummary(w http.ResponseWriter, r *http.Request) {
	s, err := k.Summary(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s)
}

// The pod annotations SimUsageFromAnnotations reads: the CPU (a rate,
// "250m") and memory ("64Mi") each container of the pod uses.
const (
	AnnotationSimCPU    = "sim.orkit.io/cpu"
	AnnotationSimMemory = "sim.orkit.io/memory"
)

// SimUsageFromAnnotations is a UsageFunc for simulated nodes: every
// container uses what the pod's AnnotationSimCPU and AnnotationSimMemory
// say (`kubectl annotate pod web-1 sim.orkit.io/cpu=200m` raises the
// load); a missing or malformed annotation means none.
func SimUsageFromAnnotations(pod *core.Pod, _ string) core.ResourceList {
	out := core.ResourceList{}
	for res, key := range map[core.ResourceName]string{core.ResourceCPU: AnnotationSimCPU, core.ResourceMemory: AnnotationSimMemory} {
		if q, err := resource.ParseQuantity(pod.Annotations[key]); err == nil && q.Sign() >= 0 {
			out[res] = q
		}
	}
	return out
}
