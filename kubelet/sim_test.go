package kubelet

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

func startPool(t testing.TB, tc *testCluster, cfg SimConfig) (*SimPool, func()) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	p := NewSimPool(tc.admin, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Run(ctx)
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return p, stop
}

func countReadyNodes(tc *testCluster) int {
	l, err := client.For[core.Node](tc.admin, "").List(context.Background(), client.ListOptions{})
	if err != nil {
		return -1
	}
	n := 0
	for i := range l.Items {
		if core.IsNodeReady(&l.Items[i]) {
			n++
		}
	}
	return n
}

func TestSimPoolRunsPods(t *testing.T) {
	tc := startCluster(t)
	p, _ := startPool(t, tc, SimConfig{Base: Config{ResyncInterval: time.Second}})
	for i := range 5 {
		_, err := p.Add(fmt.Sprintf("sim-node-%d", i))
		require.NoError(t, err)
	}
	_, err := p.Add("sim-node-0")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	waitFor(t, 20*time.Second, "5 ready nodes", func() bool { return countReadyNodes(tc) == 5 })
	ctx := context.Background()
	for i := range 10 {
		_, err := pods(tc.admin, "default").Create(ctx, simplePod(fmt.Sprintf("p%d", i), fmt.Sprintf("sim-node-%d", i%5)))
		require.NoError(t, err)
	}
	ips := map[string]bool{}
	for i := range 10 {
		got := waitPod(t, tc.admin, "default", fmt.Sprintf("p%d", i), 20*time.Second, "Running", func(p *core.Pod) bool {
			return running(p) && isReady(p) && p.Status.PodIP != ""
		})
		assert.False(t, ips[got.Status.PodIP], "duplicate IP %s", got.Status.PodIP)
		ips[got.Status.PodIP] = true
	}
	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "p3", nil))
	waitFor(t, 20*time.Second, "p3 deleted", func() bool {
		_, err := pods(tc.admin, "default").Get(ctx, "p3")
		return err != nil
	})
}

// TestSimPoolSharedInformers: a pool given the process's pod and node
// informers runs pods through them without running them itself, and
// leaves them running, their objects untouched, when it stops.
func TestSimPoolSharedInformers(t *testing.T) {
	tc := startCluster(t)
	podInf := informer.New[*core.Pod](informer.NewListerWatcher(client.For[core.Pod](tc.admin, ""), "", ""), informer.Config[*core.Pod]{})
	nodeInf := informer.New[*core.Node](informer.NewListerWatcher(client.For[core.Node](tc.admin, ""), "", ""), informer.Config[*core.Node]{})
	p, stopPool := startPool(t, tc, SimConfig{Pods: podInf, Nodes: nodeInf})
	for i := range 2 {
		_, err := p.Add(fmt.Sprintf("sim-node-%d", i))
		require.NoError(t, err)
	}
	// The informers are the test's: the pool has not started them (Run
	// would return ErrAlreadyRunning at once).
	ctx, cancel := context.WithCancel(context.Background())
	runErrs := make(chan error, 2)
	go func() { runErrs <- podInf.Run(ctx) }()
	go func() { runErrs <- nodeInf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range 2 {
			assert.NoError(t, <-runErrs, "the test's Run of a shared informer")
		}
	})
	waitFor(t, 20*time.Second, "2 ready nodes", func() bool { return countReadyNodes(tc) == 2 })
	for i := range 4 {
		_, err := pods(tc.admin, "default").Create(context.Background(), simplePod(fmt.Sprintf("p%d", i), fmt.Sprintf("sim-node-%d", i%2)))
		require.NoError(t, err)
	}
	for i := range 4 {
		waitPod(t, tc.admin, "default", fmt.Sprintf("p%d", i), 20*time.Second, "Running", func(p *core.Pod) bool {
			return running(p) && isReady(p)
		})
	}
	// The cached pods are the server's objects, unmodified by the pool.
	for i := range 4 {
		cached, ok := podInf.Indexer().Get("default/" + fmt.Sprintf("p%d", i))
		require.True(t, ok)
		stored, err := pods(tc.admin, "default").Get(context.Background(), cached.Name)
		require.NoError(t, err)
		if cached.ResourceVersion == stored.ResourceVersion {
			assert.Equal(t, stored, cached, "%s: the cache holds what the server stored", cached.Name)
		}
	}

	stopPool()
	assert.True(t, podInf.HasSynced(), "the pod informer outlives the pool")
	assert.True(t, nodeInf.HasSynced(), "the node informer outlives the pool")
	_, err := pods(tc.admin, "default").Create(context.Background(), simplePod("after", "sim-node-0"))
	require.NoError(t, err)
	waitFor(t, 20*time.Second, "the pod made after the pool stopped in the shared cache", func() bool {
		_, ok := podInf.Indexer().Get("default/after")
		return ok
	})
}

// footprint adds n simulated nodes to a running pool and returns the heap
// and stack bytes they added per node, and the process CPU time per node
// per second over an idle window (which includes the in-process API
// server's share of serving them).
func footprint(t testing.TB, n int, idle time.Duration) (bytesPerNode float64, cpuPerNodeSec time.Duration) {
	tc := startCluster(t)
	p, _ := startPool(t, tc, SimConfig{})
	before := memInUse()
	for i := range n {
		_, err := p.Add(fmt.Sprintf("sim-%d", i))
		require.NoError(t, err)
	}
	waitFor(t, 120*time.Second, "nodes ready", func() bool { return countReadyNodes(tc) == n })
	after := memInUse()
	cpu0 := cpuTime()
	start := time.Now()
	time.Sleep(idle) // measuring idle CPU: nothing to synchronise with
	cpu := cpuTime() - cpu0
	elapsed := time.Since(start)
	return (float64(after) - float64(before)) / float64(n), time.Duration(float64(cpu) / float64(n) / elapsed.Seconds())
}

func memInUse() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc + ms.StackInuse
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestSimulatedNodeFootprint(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bytes, cpu := footprint(t, 200, 3*time.Second)
	t.Logf("per idle simulated node: %.0f bytes (kubelet and the in-process API server's copy), %s CPU per second", bytes, cpu)
	assert.Less(t, bytes, float64(1<<20), "at most 1 MiB per idle simulated node")
}

// BenchmarkSimulatedNodes reports memory and idle CPU per simulated node
// for 1000 nodes.
func BenchmarkSimulatedNodes(b *testing.B) {
	for range b.N {
		bytes, cpu := footprint(b, 1000, 20*time.Second)
		b.ReportMetric(bytes, "bytes/node")
		b.ReportMetric(float64(cpu.Microseconds()), "cpu-µs/node/s")
	}
}
