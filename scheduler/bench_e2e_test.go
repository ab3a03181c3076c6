package scheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
)

// BenchmarkEndToEnd measures scheduling through the API server: 5,000
// simulated nodes, then 10,000 pods of mixed sizes created by 64 workers
// while the scheduler runs; the time is from the first create to the
// last successful binding. Node creation is not timed. Run it alone:
// go test ./scheduler -run XXX -bench EndToEnd -benchtime 1x
func BenchmarkEndToEnd(b *testing.B) {
	const numNodes, numPods = 5000, 10000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := simcluster.Start(b)
		ctx := context.Background()
		require.NoError(b, simcluster.CreateNodes(ctx, c.Admin, benchNodes(numNodes), 32))
		s, err := scheduler.New(scheduler.Config{Client: c.Scheduler, Logger: quiet()})
		require.NoError(b, err)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Run(runCtx) }()
		<-s.Synced()
		pods := make([]*core.Pod, numPods)
		for j := range pods {
			sz := podSizes[j%len(podSizes)]
			pods[j] = simcluster.Pod(fmt.Sprintf("pod-%05d", j), sz[0], sz[1])
		}
		b.StartTimer()
		start := time.Now()
		require.NoError(b, simcluster.CreateAll(ctx, c.Admin, "default", pods, 64))
		created := time.Since(start)
		boundAtCreated := s.Stats().Scheduled
		for s.Stats().Scheduled < numPods {
			if time.Since(start) > 5*time.Minute {
				b.Fatalf("only %d pods bound after 5 minutes: %+v", s.Stats().Scheduled, s.Stats())
			}
			time.Sleep(5 * time.Millisecond)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		list, err := client.For[core.Pod](c.Admin, "default").List(ctx, client.ListOptions{})
		require.NoError(b, err)
		unbound := 0
		for _, p := range list.Items {
			if p.Spec.NodeName == "" {
				unbound++
			}
		}
		require.Zero(b, unbound)
		b.ReportMetric(float64(numPods)/elapsed.Seconds(), "pods/s")
		b.ReportMetric(float64(numPods)/created.Seconds(), "creates/s")
		b.Logf("10,000 pods bound in %v (creates took %v, %d bound by then); stats %+v", elapsed, created, boundAtCreated, s.Stats())
		cancel()
		require.NoError(b, <-done)
	}
}
