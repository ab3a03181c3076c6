package bbolt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

// churn updates every one of keys keys rounds times with values of size
// bytes, from one writer per key group.
func churn(t *testing.T, s store.Interface, keys, rounds, size int) {
	t.Helper()
	ctx := context.Background()
	revs := make([]int64, keys)
	for i := range keys {
		key := fmt.Sprintf("/churn/%04d", i)
		rev, err := s.Create(ctx, key, make([]byte, size))
		if errors.Is(err, store.ErrAlreadyExists) { // a later round
			kv, gerr := s.Get(ctx, key)
			require.NoError(t, gerr)
			rev, err = kv.ModRevision, nil
		}
		require.NoError(t, err)
		revs[i] = rev
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			for r := range rounds {
				for i := w; i < keys; i += 16 {
					v := make([]byte, size)
					v[0] = byte(r)
					rev, err := s.Update(ctx, fmt.Sprintf("/churn/%04d", i), v, revs[i])
					if err != nil {
						errs <- err
						return
					}
					revs[i] = rev
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Size()
}

// TestDefragment: after compaction, Defragment gives the freed pages back
// (the file shrinks) and the store reads exactly as before: the same
// keys, values, revision, compacted revision and remaining history.
func TestDefragment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := bbolt.Open(path, nil)
	require.NoError(t, err)
	ctx := context.Background()
	churn(t, s, 200, 40, 4096)
	rev, err := s.Revision(ctx)
	require.NoError(t, err)
	keep := rev - 100
	require.NoError(t, s.Compact(ctx, keep))
	before, err := s.List(ctx, "/", store.ListOptions{})
	require.NoError(t, err)
	past, err := s.List(ctx, "/", store.ListOptions{Revision: keep})
	require.NoError(t, err)

	_, err = bbolt.Defragment(path, &bbolt.Config{LockTimeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, bbolt.ErrLocked, "refused while a store has the file open")
	require.NoError(t, s.Close())

	res, err := bbolt.Defragment(path, nil)
	require.NoError(t, err)
	t.Logf("defragmented: %d -> %d bytes", res.Before, res.After)
	assert.Equal(t, res.After, fileSize(t, path))
	assert.Less(t, res.After, res.Before/4, "the space compaction freed is given back")
	assert.NoFileExists(t, path+".defrag")

	s, err = bbolt.Open(path, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	got, err := s.Revision(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev, got)
	after, err := s.List(ctx, "/", store.ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, before.KVs, after.KVs)
	pastAfter, err := s.List(ctx, "/", store.ListOptions{Revision: keep})
	require.NoError(t, err)
	assert.Equal(t, past.KVs, pastAfter.KVs, "history after the compacted revision is kept")
	_, err = s.List(ctx, "/", store.ListOptions{Revision: keep - 1})
	assert.ErrorIs(t, err, store.ErrTooOld, "the compacted revision is kept")
	_, err = s.Update(ctx, "/churn/0000", []byte("after"), after.KVs[0].ModRevision)
	assert.NoError(t, err, "the new file takes writes")
}

// TestDefragmentRefusesDamagedFile: a damaged file is refused and left as
// it was.
func TestDefragmentRefusesDamagedFile(t *testing.T) {
	path := populated(t, 10)
	overwrite(t, path, 0, make([]byte, 8192))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	_, err = bbolt.Defragment(path, nil)
	require.ErrorIs(t, err, store.ErrCorrupt)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, b, after)
}

// TestFileStopsGrowingUnderChurn: keys updated over and over, with a
// store.Compactor round every 5,000 updates, keep the file at the size it
// reached after the first rounds (compaction frees pages and later
// commits reuse them); without the rounds every update's history stays
// and the file keeps growing. BenchmarkChurnFileSize has the full-size
// figures (BENCHMARKS.md).
func TestFileStopsGrowingUnderChurn(t *testing.T) {
	for _, compaction := range []bool{true, false} {
		t.Run(fmt.Sprintf("compaction=%v", compaction), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			s, err := bbolt.Open(path, nil)
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close()) }()
			c := store.NewCompactor(s, store.CompactorConfig{})
			var sizes []int64
			for range 6 {
				churn(t, s, 250, 20, 1024) // 5,000 updates, then a compaction round
				if compaction {
					require.NoError(t, c.Step(context.Background()))
				}
				sizes = append(sizes, fileSize(t, path))
			}
			t.Logf("file size after each 5,000 updates: %v", sizes)
			grown := sizes[5] > sizes[2]+sizes[2]/10
			assert.Equal(t, !compaction, grown, "the file grew between 15,000 and 30,000 updates")
		})
	}
}
