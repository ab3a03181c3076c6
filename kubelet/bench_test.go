package kubelet

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
)

// BenchmarkPodStartup measures pod created in the API server → Running
// observed through a watch, on a real containerd with the image already
// present: 100 pods with at most 10 in flight, and 20 pods one at a time.
// It reports p50, p99 and max.
func BenchmarkPodStartup(b *testing.B) {
	n := newRealNode(b, "bench-node")
	b.Run("100-pods-10-in-flight", func(b *testing.B) { benchStartup(b, n, 100, 10) })
	b.Run("20-pods-sequential", func(b *testing.B) { benchStartup(b, n, 20, 1) })
}

func benchStartup(b *testing.B, n *realNode, total, inFlight int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for iter := range b.N {
		ch, err := pods(n.tc.admin, "default").Watch(ctx, client.ListOptions{})
		require.NoError(b, err)
		var mu sync.Mutex
		runningAt := map[string]chan time.Time{}
		waiter := func(name string) chan time.Time {
			mu.Lock()
			defer mu.Unlock()
			c := runningAt[name]
			if c == nil {
				c = make(chan time.Time, 1)
				runningAt[name] = c
			}
			return c
		}
		go func() {
			seen := map[string]bool{}
			for ev := range ch {
				if ev.Object == nil || ev.Object.Status.Phase != core.PodRunning || seen[ev.Object.Name] {
					continue
				}
				seen[ev.Object.Name] = true
				waiter(ev.Object.Name) <- time.Now()
			}
		}()
		lat := make([]time.Duration, total)
		sem := make(chan struct{}, inFlight)
		var wg sync.WaitGroup
		b.ResetTimer()
		for i := range total {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				name := fmt.Sprintf("bench-%d-%d-%d", inFlight, iter, i)
				w := waiter(name)
				start := time.Now()
				if testing.Verbose() {
					fmt.Println("TIMING create", name, start.Format("15:04:05.000"))
				}
				if _, err := pods(n.tc.admin, "default").Create(ctx, simplePod(name, "bench-node")); err != nil {
					b.Error(err)
					return
				}
				select {
				case t := <-w:
					lat[i] = t.Sub(start)
					if testing.Verbose() {
						fmt.Println("TIMING running", name, t.Format("15:04:05.000"))
					}
				case <-time.After(60 * time.Second):
					b.Errorf("pod %s not Running in 60s", name)
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		b.ReportMetric(float64(lat[total/2].Milliseconds()), "p50-ms")
		b.ReportMetric(float64(lat[total*99/100].Milliseconds()), "p99-ms")
		b.ReportMetric(float64(lat[total-1].Milliseconds()), "max-ms")
		n.cleanupPods(b)
	}
}
