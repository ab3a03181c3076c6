package storetest

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// testCompaction compacts a random history in steps and checks after each
// that everything at or after the compacted revision still reads exactly as
// the model says, and everything before it fails with ErrTooOld.
func testCompaction(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	m := newModel(revision(t, s))
	rng := rand.New(rand.NewPCG(11, 12))
	randomWrites(ctx, t, s, m, rng, "/c/", 6, 120)
	cur := m.last()

	err := s.Compact(ctx, cur+1)
	require.ErrorIs(t, err, store.ErrFutureRevision)
	// A continue token whose revision gets compacted away expires.
	page, err := s.List(ctx, "/c/", store.ListOptions{Revision: m.base + 5, Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, page.Continue)

	for _, c := range []int64{m.base + 10, m.base + 40, m.base + 41, m.base + 90} {
		require.NoError(t, s.Compact(ctx, c), "compact to %d", c)
		t.Run(key("after compact %d", c), func(t *testing.T) {
			_, err := s.List(ctx, "/c/", store.ListOptions{Revision: c - 1})
			assert.ErrorIs(t, err, store.ErrTooOld, "list below compaction")
			_, err = s.Watch(ctx, "/c/", c-1)
			assert.ErrorIs(t, err, store.ErrTooOld, "watch below compaction")
			for rev := c; rev <= cur; rev++ {
				want := m.sorted(rev, "/c/")
				got, _, err := listAll(ctx, s, "/c/", rev, 3)
				require.NoError(t, err, "list at %d", rev)
				require.Len(t, got, len(want), "list at %d", rev)
				for i := range want {
					assertKV(t, want[i], got[i])
				}
			}
			for _, from := range []int64{c, (c + cur) / 2} {
				ch, err := s.Watch(ctx, "/c/", from)
				require.NoError(t, err)
				got := collect(t, ch, func(evs []store.Event) bool { return int64(len(evs)) >= cur-from })
				for i, ev := range got {
					assertEvent(t, m.events[from+1+int64(i)], ev)
				}
			}
		})
	}
	require.NoError(t, s.Compact(ctx, m.base+5), "compacting to an older revision is a no-op")
	_, err = s.List(ctx, "/c/", store.ListOptions{Continue: page.Continue, Limit: 1})
	require.ErrorIs(t, err, store.ErrTooOld, "continue token older than the compaction")
	for k, want := range m.at(cur) {
		got, err := s.Get(ctx, k)
		require.NoError(t, err)
		assertKV(t, want, got)
	}
	// Writes continue after compaction, and a compaction up to the newest
	// revision keeps the current state listable.
	randomWrites(ctx, t, s, m, rng, "/c/", 6, 20)
	require.NoError(t, s.Compact(ctx, m.last()))
	got, _, err := listAll(ctx, s, "/c/", m.last(), 0)
	require.NoError(t, err)
	want := m.sorted(m.last(), "/c/")
	require.Len(t, got, len(want))
	for i := range want {
		assertKV(t, want[i], got[i])
	}
}

// testCompactDuringReplay compacts past a watch that is still replaying:
// the watch must either deliver every event or a gap-free prefix of them
// followed by a final ErrTooOld, never skip events silently.
func testCompactDuringReplay(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	base := revision(t, s)
	const n = 1500
	var wg sync.WaitGroup
	errs := make(chan error, 30)
	for w := range 30 {
		wg.Go(func() {
			for i := w; i < n; i += 30 {
				if _, err := s.Create(ctx, key("/cr/%05d", i), []byte("v")); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
	ch, err := s.Watch(ctx, "/cr/", base+1) // not read until compacted
	require.NoError(t, err)
	require.NoError(t, s.Compact(ctx, base+n-10))
	next := base + 2
	for ev := range ch {
		if ev.Err != nil {
			require.ErrorIs(t, ev.Err, store.ErrTooOld)
			t.Logf("watch ended with ErrTooOld after %d events", next-base-2)
			return
		}
		require.Equal(t, next, ev.Revision, "no silent gap")
		next++
		if ev.Revision == base+n {
			return
		}
	}
	require.Fail(t, "watch closed without an error event")
}
