package controller

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/orkit/orkit/informer/workqueue"
)

// BenchmarkDispatch measures the controller's own overhead per request:
// queue hand-out, reconcile call, result handling and metrics, with a
// reconciler that does nothing.
func BenchmarkDispatch(b *testing.B) {
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var done atomic.Int64
			all := make(chan struct{})
			n := int64(b.N)
			c, err := New("bench", ReconcilerFunc(func(context.Context, Request) (Result, error) {
				if done.Add(1) == n {
					close(all)
				}
				return Result{}, nil
			}), Config{Logger: quietLogger()})
			if err != nil {
				b.Fatal(err)
			}
			q := workqueue.New(workqueue.Config[Request]{Metrics: c.metrics.queue})
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() { defer wg.Done(); c.worker(ctx, q) }()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				q.Add(Request{Namespace: "ns", Name: strconv.Itoa(i)})
			}
			<-all
			b.StopTimer()
			cancel()
			q.ShutDown()
			wg.Wait()
		})
	}
}
