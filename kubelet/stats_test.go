package kubelet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/resource"
)

func TestUsageMeter(t *testing.T) {
	var m usageMeter
	t0 := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	assert.Equal(t, uint64(0), m.advance("a", 500, t0))
	assert.Equal(t, uint64(500_000_000), m.advance("a", 500, t0.Add(time.Second)), "0.5 cores for 1s")
	assert.Equal(t, uint64(2_500_000_000), m.advance("a", 1000, t0.Add(3*time.Second)), "then 1 core for 2s")
	assert.Equal(t, uint64(2_500_000_000), m.advance("a", 1000, t0.Add(2*time.Second)), "time going back adds nothing")
	assert.Equal(t, uint64(0), m.advance("b", 1000, t0))
}

// A cgroup v2 tree as the kernel lays it out: usage_usec in cpu.stat,
// memory.current minus inactive_file is the working set.
func TestCgroupUsageV2(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "cgroup.controllers"), []byte("cpu memory pids"), 0o644))
	dir := filepath.Join(root, "kubepods", "burstable", "podu1", "c1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cpu.stat"), []byte("usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memory.current"), []byte("10485760\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memory.stat"), []byte("anon 8388608\ninactive_file 2097152\n"), 0o644))
	m := newCgroupManager(root)
	cpu, mem, ok := m.usage("kubepods/burstable/podu1/c1")
	require.True(t, ok)
	assert.Equal(t, uint64(1_500_000), cpu)
	assert.Equal(t, uint64(8<<20), mem)
	_, _, ok = m.usage("kubepods/burstable/podu1/gone")
	assert.False(t, ok)
}

func TestHostUsage(t *testing.T) {
	cpu, mem, err := hostUsage()
	require.NoError(t, err)
	assert.Positive(t, cpu)
	assert.Positive(t, mem)
}

// A simulated node reports the synthetic usage of its running pods, the
// CPU as a cumulative figure that grows at the configured rate.
func TestSimPoolSummary(t *testing.T) {
	tc := startCluster(t)
	usage := func(*core.Pod, string) core.ResourceList {
		return core.ResourceList{core.ResourceCPU: resource.MustParse("250m"), core.ResourceMemory: resource.MustParse("64Mi")}
	}
	p, _ := startPool(t, tc, SimConfig{Base: Config{ResyncInterval: time.Second, SyntheticUsage: usage}})
	_, err := p.Add("sim-node-0")
	require.NoError(t, err)
	ctx := context.Background()
	_, err = pods(tc.admin, "default").Create(ctx, simplePod("p0", "sim-node-0"))
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "p0", 20*time.Second, "Running", func(p *core.Pod) bool { return running(p) })
	var first uint64
	waitFor(t, 20*time.Second, "p0 in the summary with growing CPU", func() bool {
		s, err := p.Summary(ctx, "sim-node-0")
		if err != nil || len(s.Pods) != 1 || s.Pods[0].PodRef.Name != "p0" {
			return false
		}
		assert.Equal(t, uint64(64<<20), *s.Pods[0].Memory.WorkingSetBytes)
		assert.Equal(t, uint64(64<<20), *s.Node.Memory.WorkingSetBytes)
		cpu := *s.Pods[0].CPU.UsageCoreNanoSeconds
		if first == 0 {
			first = cpu + 1 // the first sample may be 0
			return false
		}
		return cpu >= first
	})
	_, err = p.Summary(ctx, "sim-node-9")
	assert.ErrorIs(t, err, ErrNoNode)
}
