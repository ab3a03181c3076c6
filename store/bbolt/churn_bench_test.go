package bbolt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

// churnUpdates is the length of BenchmarkChurnFileSize's workload;
// ORKIT_CHURN_UPDATES overrides the 1,000,000 default.
func churnUpdates() int64 {
	if n, err := strconv.ParseInt(os.Getenv("ORKIT_CHURN_UPDATES"), 10, 64); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// BenchmarkChurnFileSize measures the store file under steady churn: 1,000
// keys of 1 KiB updated 1,000,000 times in all by 32 writers, with and
// without compaction. With compaction a store.Compactor takes a round
// every 50,000 updates (the API server's rounds are every 5 minutes; here
// an interval is 50,000 revisions), so the store keeps between 50,000 and
// 100,000 revisions of history. It logs the file size every 100,000
// updates and, at the end, the size after bbolt.Defragment. Run one
// iteration: -benchtime 1x.
func BenchmarkChurnFileSize(b *testing.B) {
	for _, compaction := range []bool{false, true} {
		b.Run(fmt.Sprintf("compaction=%v", compaction), func(b *testing.B) {
			for range b.N {
				churnFileSize(b, compaction)
			}
		})
	}
}

func churnFileSize(b *testing.B, compaction bool) {
	const keys, writers, size, interval, report = 1000, 32, 1024, 50_000, 100_000
	total := churnUpdates()
	path := filepath.Join(b.TempDir(), "store.db")
	s, err := bbolt.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	revs := make([]int64, keys)
	for i := range keys {
		if revs[i], err = s.Create(ctx, fmt.Sprintf("/registry/configmaps/churn/cm-%04d", i), make([]byte, size)); err != nil {
			b.Fatal(err)
		}
	}
	compactor := store.NewCompactor(s, store.CompactorConfig{})
	var done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	b.ResetTimer()
	for w := range writers {
		wg.Go(func() {
			v := make([]byte, size)
			for round := 0; ; round++ {
				for i := w; i < keys; i += writers {
					n := done.Add(1)
					if n > total {
						return
					}
					v[0], v[1] = byte(round), byte(n)
					rev, err := s.Update(ctx, fmt.Sprintf("/registry/configmaps/churn/cm-%04d", i), v, revs[i])
					if err != nil {
						b.Error(err)
						return
					}
					revs[i] = rev
					if compaction && n%interval == 0 {
						if err := compactor.Step(ctx); err != nil {
							b.Error(err)
						}
					}
					if n%report == 0 {
						b.Logf("compaction=%v updates=%7d file=%7.1f MB compacted-to=%d (%.0f s)",
							compaction, n, mb(path), compactor.Compacted(), time.Since(start).Seconds())
					}
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	elapsed := time.Since(start)
	final := mb(path)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	res, err := bbolt.Defragment(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("compaction=%v: %d updates in %.0f s (%.0f/s); file %.1f MB, after Defragment %.1f MB",
		compaction, total, elapsed.Seconds(), float64(total)/elapsed.Seconds(), final, float64(res.After)/(1<<20))
	b.ReportMetric(final, "file-MB")
	b.ReportMetric(float64(res.After)/(1<<20), "defragmented-MB")
	b.ReportMetric(float64(total)/elapsed.Seconds(), "updates/s")
}

// mb is path's size in MiB.
func mb(path string) float64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return float64(info.Size()) / (1 << 20)
}
