package etcd_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/internal/etcdtest"
	"github.com/orkit/orkit/store/etcd"
)

// benchClusters are the clusters benchmarks share (by member count),
// started on first use and stopped by TestMain.
var benchClusters struct {
	mu  sync.Mutex
	dir string
	by  map[int]*etcdtest.Cluster
}

func TestMain(m *testing.M) {
	code := m.Run()
	benchClusters.mu.Lock()
	for _, c := range benchClusters.by {
		c.Stop()
	}
	if benchClusters.dir != "" {
		os.RemoveAll(benchClusters.dir)
	}
	benchClusters.mu.Unlock()
	os.Exit(code)
}

// benchStore returns a Store on the shared cluster of the given size and a
// key prefix no other benchmark run uses.
func benchStore(b *testing.B, members int) (*etcd.Store, string) {
	b.Helper()
	bin := etcdtest.Require(b)
	benchClusters.mu.Lock()
	defer benchClusters.mu.Unlock()
	c := benchClusters.by[members]
	if c == nil {
		if benchClusters.dir == "" {
			dir, err := os.MkdirTemp("", "etcd-bench-")
			require.NoError(b, err)
			benchClusters.dir, benchClusters.by = dir, map[int]*etcdtest.Cluster{}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var err error
		c, err = etcdtest.StartCluster(ctx, bin, fmt.Sprintf("%s/m%d", benchClusters.dir, members),
			etcdtest.Config{Members: members})
		require.NoError(b, err)
		benchClusters.by[members] = c
	}
	return connect(b, c.Endpoints(), etcd.Config{}), fmt.Sprintf("/bench/run%d/", benchRun.Add(1))
}

var benchRun atomic.Int64

// percentile returns the p-th percentile (0..100) of ds in milliseconds.
func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(float64(len(ds)-1) * p / 100)
	return float64(ds[i]) / float64(time.Millisecond)
}

// runWriters runs b.N calls of write spread over n goroutines and reports
// throughput and latency percentiles (as store/bbolt's benchmarks do).
func runWriters(b *testing.B, n int, write func(w, i int) error) {
	var next atomic.Int64
	lat := make([][]time.Duration, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range n {
		wg.Go(func() {
			for i := 0; ; i++ {
				if next.Add(1) > int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := write(w, i); err != nil {
					b.Error(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(percentile(all, 50), "p50-ms")
	b.ReportMetric(percentile(all, 99), "p99-ms")
}

// BenchmarkCreate measures creates of 1 KiB values (each a compare-and-put
// transaction committed by a quorum) by concurrent writers, on a 1- and a
// 3-member cluster.
func BenchmarkCreate(b *testing.B) {
	value := make([]byte, 1024)
	for _, members := range []int{1, 3} {
		for _, writers := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("members=%d/writers=%d", members, writers), func(b *testing.B) {
				s, prefix := benchStore(b, members)
				ctx := context.Background()
				runWriters(b, writers, func(w, i int) error {
					_, err := s.Create(ctx, fmt.Sprintf("%sw%02d/%09d", prefix, w, i), value)
					return err
				})
			})
		}
	}
}

// BenchmarkWatchFanout measures the time from a Create call to each of N
// watchers (same prefix, one Store, each drained by its own goroutine)
// receiving the event; one write at a time, 3-member cluster.
func BenchmarkWatchFanout(b *testing.B) {
	for _, watchers := range []int{100, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) { watchFanout(b, watchers) })
	}
}

func watchFanout(b *testing.B, watchers int) {
	s, prefix := benchStore(b, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	var got atomic.Int64
	var wg sync.WaitGroup
	for range watchers {
		ch, err := s.Watch(ctx, prefix, 0)
		require.NoError(b, err)
		wg.Go(func() {
			var mine []time.Duration
			for ev := range ch {
				if ev.Err != nil {
					b.Error(ev.Err)
					break
				}
				if len(ev.KV.Value) != 8 {
					continue // progress
				}
				sent := int64(binary.BigEndian.Uint64(ev.KV.Value))
				mine = append(mine, time.Duration(time.Now().UnixNano()-sent))
				got.Add(1)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	var createLat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		v := binary.BigEndian.AppendUint64(nil, uint64(t0.UnixNano()))
		if _, err := s.Create(ctx, fmt.Sprintf("%s%09d", prefix, i), v); err != nil {
			b.Fatal(err)
		}
		createLat = append(createLat, time.Since(t0))
		for got.Load() < int64(watchers*(i+1)) { // wait for full delivery
			time.Sleep(50 * time.Microsecond)
		}
	}
	b.StopTimer()
	cancel()
	wg.Wait()
	b.ReportMetric(percentile(lat, 50), "p50-ms")
	b.ReportMetric(percentile(lat, 99), "p99-ms")
	b.ReportMetric(percentile(lat, 100), "max-ms")
	b.ReportMetric(percentile(createLat, 99), "create-p99-ms")
}
