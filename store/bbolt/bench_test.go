package bbolt_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

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
// throughput and latency percentiles.
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

// BenchmarkCreate measures durable (fsynced) creates of 1 KiB values by
// concurrent writers through the group committer.
func BenchmarkCreate(b *testing.B) {
	value := make([]byte, 1024)
	for _, writers := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s := openTemp(b, nil)
			ctx := context.Background()
			before := s.Stats()
			runWriters(b, writers, func(w, i int) error {
				_, err := s.Create(ctx, fmt.Sprintf("/bench/w%02d/%09d", w, i), value)
				return err
			})
			after := s.Stats()
			b.ReportMetric(float64(after.CommittedWrites-before.CommittedWrites)/
				float64(after.Commits-before.Commits), "writes/commit")
		})
	}
}

// BenchmarkBoltBatch is the comparison: plain bbolt DB.Batch (which waits
// up to 10 ms to gather a batch) putting 1 KiB values, 32 writers.
func BenchmarkBoltBatch(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "batch.db"), 0o600, nil)
	require.NoError(b, err)
	defer db.Close()
	require.NoError(b, db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("kv"))
		return err
	}))
	value := make([]byte, 1024)
	b.Run("writers=32", func(b *testing.B) {
		runWriters(b, 32, func(w, i int) error {
			k := []byte(fmt.Sprintf("/bench/w%02d/%09d", w, i))
			return db.Batch(func(tx *bolt.Tx) error { return tx.Bucket([]byte("kv")).Put(k, value) })
		})
	})
}

// BenchmarkWatchFanout measures the time from a Create call to each of
// 1,000 watchers (same prefix, each drained by its own goroutine) receiving
// the event; one write at a time.
func BenchmarkWatchFanout(b *testing.B) {
	const watchers = 1000
	s := openTemp(b, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	recv := make([][]int64, watchers) // per watcher, receive time of each event
	var got atomic.Int64
	var wg sync.WaitGroup
	for w := range watchers {
		ch, err := s.Watch(ctx, "/fan/", 0)
		require.NoError(b, err)
		wg.Go(func() {
			var mine []time.Duration
			for ev := range ch {
				if ev.Err != nil {
					b.Error(ev.Err)
					break
				}
				now := time.Now().UnixNano()
				sent := int64(binary.BigEndian.Uint64(ev.KV.Value))
				mine = append(mine, time.Duration(now-sent))
				recv[w] = append(recv[w], now)
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
		if _, err := s.Create(ctx, fmt.Sprintf("/fan/%09d", i), v); err != nil {
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
	b.ReportMetric(percentile(createLat, 99), "create-p99-ms") // the commit's share
	// Spread: first to last watcher receiving the same event, the fan-out's
	// own cost without the commit.
	var spread []time.Duration
	for i := range recv[0] {
		lo, hi := recv[0][i], recv[0][i]
		for w := range recv {
			if i < len(recv[w]) {
				lo, hi = min(lo, recv[w][i]), max(hi, recv[w][i])
			}
		}
		spread = append(spread, time.Duration(hi-lo))
	}
	b.ReportMetric(percentile(spread, 99), "spread-p99-ms")
}

// BenchmarkRead100k measures List and Get over 100,000 keys (200-byte
// values) under one prefix.
func BenchmarkRead100k(b *testing.B) {
	const keys = 100_000
	s := openTemp(b, nil)
	fill(b, s, keys)
	ctx := context.Background()
	b.Run("List", func(b *testing.B) {
		for b.Loop() {
			res, err := s.List(ctx, "/list/", store.ListOptions{})
			if err != nil || len(res.KVs) != keys {
				b.Fatal(err, len(res.KVs))
			}
		}
	})
	b.Run("ListPage500", func(b *testing.B) {
		for b.Loop() {
			res, err := s.List(ctx, "/list/", store.ListOptions{Limit: 500})
			if err != nil || len(res.KVs) != 500 {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			if _, err := s.Get(ctx, fmt.Sprintf("/list/%09d", rng.IntN(keys))); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fill creates n keys /list/%09d with 256 concurrent writers.
func fill(b *testing.B, s *bbolt.Store, n int) {
	b.Helper()
	ctx := context.Background()
	value := make([]byte, 200)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 256 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				if _, err := s.Create(ctx, fmt.Sprintf("/list/%09d", i), value); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkFdatasync is the floor under every durable write on this disk:
// one 4 KiB page written and fdatasync'd (a bbolt commit does two).
func BenchmarkFdatasync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	require.NoError(b, err)
	defer f.Close()
	page := make([]byte, 4096)
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := f.WriteAt(page, int64(i%256)*4096); err != nil {
			b.Fatal(err)
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(percentile(lat, 50), "p50-ms")
	b.ReportMetric(percentile(lat, 99), "p99-ms")
}

// BenchmarkCreateIdleWatchers is Create/writers=32 while 1,000 watchers on
// other prefixes (each drained by its own goroutine) see none of the writes:
// the cost a commit pays for watchers it does not concern (progress events).
func BenchmarkCreateIdleWatchers(b *testing.B) {
	s := openTemp(b, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var progress atomic.Int64
	for i := range 1000 {
		ch, err := s.Watch(ctx, fmt.Sprintf("/idle/%04d/", i), 0)
		require.NoError(b, err)
		wg.Go(func() {
			for ev := range ch {
				if ev.Type == store.EventProgress {
					progress.Add(1)
				}
			}
		})
	}
	value := make([]byte, 1024)
	before := s.Stats()
	runWriters(b, 32, func(w, i int) error {
		_, err := s.Create(ctx, fmt.Sprintf("/bench/w%02d/%09d", w, i), value)
		return err
	})
	after := s.Stats()
	cancel()
	wg.Wait()
	b.ReportMetric(float64(progress.Load())/float64(after.Commits-before.Commits), "progress/commit")
}
