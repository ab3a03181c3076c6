package kubelet

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/core"
)

// cpuManager is the static CPU manager policy: containers of Guaranteed
// pods with an integer CPU request get that many CPUs for themselves;
// ReservedCPUs (the lowest-numbered) are never handed out. Safe for
// concurrent use.
type cpuManager struct {
	mu       sync.Mutex
	free     []int            // CPUs available for exclusive use
	assigned map[string][]int // container ID -> its CPUs
}

func hostCPUs(capacity core.ResourceList) int {
	if q, ok := capacity[core.ResourceCPU]; ok {
		return int(q.Value())
	}
	return runtime.NumCPU()
}

func newCPUManager(n, reserved int) *cpuManager {
	m := &cpuManager{assigned: map[string][]int{}}
	for i := reserved; i < n; i++ {
		m.free = append(m.free, i)
	}
	return m
}

// exclusiveCPUs returns how many CPUs c of pod gets for itself: its integer
// CPU request in a Guaranteed pod, else 0.
func exclusiveCPUs(pod *core.Pod, c *core.Container) int {
	if core.ComputePodQOS(pod) != core.PodQOSGuaranteed {
		return 0
	}
	q, ok := c.Resources.Requests[core.ResourceCPU]
	if !ok || q.MilliValue()%1000 != 0 {
		return 0
	}
	return int(q.Value())
}

// allocate takes n CPUs for container id.
func (m *cpuManager) allocate(id string, n int) ([]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if got, ok := m.assigned[id]; ok {
		return got, nil
	}
	if n > len(m.free) {
		return nil, fmt.Errorf("%w: want %d, %d free", ErrNoCPUs, n, len(m.free))
	}
	got := append([]int(nil), m.free[:n]...)
	m.free = m.free[n:]
	m.assigned[id] = got
	return got, nil
}

// adopt records CPUs a running container already holds (after a restart).
func (m *cpuManager) adopt(id, cpuset string) {
	cpus := parseCPUList(cpuset)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.assigned[id] = cpus
	taken := map[int]bool{}
	for _, c := range cpus {
		taken[c] = true
	}
	free := m.free[:0]
	for _, c := range m.free {
		if !taken[c] {
			free = append(free, c)
		}
	}
	m.free = free
}

func (m *cpuManager) release(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cpus, ok := m.assigned[id]; ok {
		delete(m.assigned, id)
		m.free = append(m.free, cpus...)
		sort.Ints(m.free)
	}
}

// assignCPUs gives a started container its exclusive CPUs through
// UpdateContainerResources.
func (k *Kubelet) assignCPUs(ctx context.Context, pod *core.Pod, c *core.Container, cs *ctrState) error {
	if k.cpus == nil {
		return nil
	}
	n := exclusiveCPUs(pod, c)
	if n == 0 {
		return nil
	}
	cpus, err := k.cpus.allocate(cs.id, n)
	if err != nil {
		return err
	}
	res := k.containerResources(pod, c)
	res.CpusetCpus = formatCPUList(cpus)
	if err := k.cfg.Runtime.UpdateContainerResources(ctx, cs.id, res); err != nil {
		k.cpus.release(cs.id)
		return fmt.Errorf("update resources of %s: %w", c.Name, err)
	}
	cs.cpus = res.CpusetCpus
	return nil
}

func (k *Kubelet) releaseCPUs(id string) {
	if k.cpus != nil {
		k.cpus.release(id)
	}
}

func formatCPUList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// parseCPUList parses "0,2-3".
func parseCPUList(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for i := a; i <= b && i-a < 4096; i++ {
			out = append(out, i)
		}
	}
	return out
}
