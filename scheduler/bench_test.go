package scheduler_test

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
)

// benchNodes returns n nodes of two sizes in 10 zones, big enough for
// the benchmark's pods.
func benchNodes(n int) []*core.Node {
	nodes := make([]*core.Node, n)
	for i := range nodes {
		cpu, mem := "32", "64Gi"
		if i%2 == 1 {
			cpu, mem = "64", "128Gi"
		}
		nodes[i] = simcluster.Node(fmt.Sprintf("node-%05d", i), fmt.Sprintf("zone-%d", i%10), cpu, mem)
	}
	return nodes
}

// BenchmarkScheduleDecisions measures scheduling decisions alone: the
// default profile placing pods of mixed sizes into an in-memory snapshot
// of 5,000 nodes (filter, score, select, assume), no API server.
func BenchmarkScheduleDecisions(b *testing.B) {
	nodes := benchNodes(5000)
	pods := make([]*core.Pod, 50000)
	for i := range pods {
		sz := podSizes[i%len(podSizes)]
		pods[i] = simcluster.Pod(fmt.Sprintf("p-%06d", i), sz[0], sz[1])
	}
	sim, err := scheduler.NewSimulator(nil)
	require.NoError(b, err)
	snap := framework.NewSnapshot(nodes, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%len(pods) == 0 {
			b.StopTimer()
			snap = framework.NewSnapshot(nodes, nil)
			b.StartTimer()
		}
		if _, err := sim.ScheduleOne(ctx, snap, pods[i%len(pods)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pods/s")
	// On a shared machine wall time depends on what else runs; the CPU
	// time per decision does not.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/pod")
}

// cpuTime returns the user+system CPU time the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCacheMemory reports the heap the scheduler cache (and its
// snapshot) holds for 5,000 nodes and 100,000 pods.
func BenchmarkCacheMemory(b *testing.B) {
	nodes := benchNodes(5000)
	for i := 0; i < b.N; i++ {
		var m0 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		pods := make([]*core.Pod, 100000)
		for j := range pods {
			sz := podSizes[j%len(podSizes)]
			p := simcluster.Pod(fmt.Sprintf("p-%06d", j), sz[0], sz[1])
			p.Spec.NodeName = nodes[j%len(nodes)].Name
			pods[j] = p
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.ReportMetric(float64(before.HeapAlloc-m0.HeapAlloc)/(1<<20), "pod-objects-MiB")
		c := scheduler.NewCache(0)
		for _, n := range nodes {
			c.AddNode(n)
		}
		for _, p := range pods {
			c.AddPod(p)
		}
		snap := framework.NewEmptySnapshot()
		c.UpdateSnapshot(snap)
		runtime.GC()
		runtime.ReadMemStats(&after)
		n, p := c.Counts()
		if n != 5000 || p != 100000 || snap.NumNodes() != 5000 {
			b.Fatalf("cache holds %d nodes, %d pods", n, p)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "cache-MiB")
		runtime.KeepAlive(pods)
		runtime.KeepAlive(c)
		runtime.KeepAlive(snap)
	}
}
