package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// testConcurrentEverything runs writers, a compactor, paging listers at
// past revisions and a live watcher at once. Lists may fail only with
// ErrTooOld (their revision was compacted meanwhile) and must otherwise be
// ordered and consistent; the watcher must see every revision, in order.
func testConcurrentEverything(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	base := revision(t, s)
	const writers, perWriter = 8, 60
	last := base + writers*perWriter
	watch, err := s.Watch(ctx, "/x/", 0)
	require.NoError(t, err)
	var got []store.Event
	var watchErr error
	var seen atomic.Int64 // the watcher's progress; compaction stays behind it
	seen.Store(base)
	watched := make(chan struct{})
	go func() { // drained as it goes: a watcher that keeps up
		defer close(watched)
		for ev := range watch {
			if ev.Err != nil {
				watchErr = ev.Err
				return
			}
			got = append(got, ev)
			seen.Store(ev.Revision)
			if ev.Revision == last {
				return
			}
		}
	}()
	done := make(chan struct{})
	var bg sync.WaitGroup
	var bgErr error
	var bgMu sync.Mutex
	fail := func(err error) {
		bgMu.Lock()
		if bgErr == nil {
			bgErr = err
		}
		bgMu.Unlock()
	}
	bg.Go(func() { compactLoop(ctx, s, seen.Load, done, fail) })
	for range 2 {
		bg.Go(func() { listLoop(ctx, s, done, fail) })
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			k := key("/x/w%d", w)
			rev, err := s.Create(ctx, k, []byte("0"))
			for i := 1; i < perWriter && err == nil; i++ {
				rev, err = s.Update(ctx, k, []byte(key("%d", i)), rev)
			}
			if err != nil {
				fail(err)
			}
		})
	}
	wg.Wait()
	close(done)
	bg.Wait()
	require.NoError(t, bgErr)
	select {
	case <-watched:
	case <-ctx.Done():
		require.FailNow(t, "watch did not reach the last revision")
	}
	require.NoError(t, watchErr)
	require.Len(t, got, int(last-base))
	for i, ev := range got {
		require.Equal(t, base+1+int64(i), ev.Revision)
	}
}

// compactLoop keeps compacting to 20 revisions behind the current one, but
// never past floor() (a watcher's progress: a watch that is replaying when
// its history is compacted ends with ErrTooOld, tested elsewhere).
func compactLoop(ctx context.Context, s store.Interface, floor func() int64, done <-chan struct{}, fail func(error)) {
	for {
		select {
		case <-done:
			return
		default:
		}
		rev, err := s.Revision(ctx)
		if to := min(rev-20, floor()); err == nil && to > 0 {
			err = s.Compact(ctx, to)
		}
		if err != nil {
			fail(err)
			return
		}
	}
}

// listLoop pages through /x/ at a revision a little in the past.
func listLoop(ctx context.Context, s store.Interface, done <-chan struct{}, fail func(error)) {
	for {
		select {
		case <-done:
			return
		default:
		}
		cur, err := s.Revision(ctx)
		if err != nil {
			fail(err)
			return
		}
		kvs, rev, err := listAll(ctx, s, "/x/", max(cur-10, 1), 3)
		if errors.Is(err, store.ErrTooOld) || (cur == 0 && errors.Is(err, store.ErrFutureRevision)) {
			continue
		}
		if err != nil {
			fail(err)
			return
		}
		for i, kv := range kvs {
			if kv.ModRevision > rev || kv.CreateRevision > kv.ModRevision || (i > 0 && kvs[i-1].Key >= kv.Key) {
				fail(errors.New("inconsistent list page: " + kv.Key))
				return
			}
		}
	}
}
