package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// Opener returns a new, empty store for one test. The backend owns its
// cleanup (register it with t.Cleanup); Close may already have been called
// by the test, so a second Close must be harmless.
type Opener func(t *testing.T) store.Interface

// Run runs the conformance suite against stores returned by open. Each
// subtest gets its own store. The slow-watcher case writes 4,000 events
// under one prefix, so the backend's per-watcher buffer must be smaller.
func Run(t *testing.T, base Opener) {
	// The cases below count events; progress events are advisory and
	// checked on their own, so the cases see the store without them.
	open := func(t *testing.T) store.Interface { return withoutProgress{base(t)} }
	t.Run("Progress", func(t *testing.T) { testProgress(t, base) })
	t.Run("CRUD", func(t *testing.T) { testCRUD(t, open) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, open) })
	t.Run("List", func(t *testing.T) { testList(t, open) })
	t.Run("ListPagination", func(t *testing.T) { testPagination(t, open) })
	t.Run("ListPastRevisions", func(t *testing.T) { testListPast(t, open) })
	t.Run("Watch", func(t *testing.T) { testWatch(t, open) })
	t.Run("WatchReplay", func(t *testing.T) { testWatchReplay(t, open) })
	t.Run("WatchErrors", func(t *testing.T) { testWatchErrors(t, open) })
	t.Run("WatchOrdering", func(t *testing.T) { testWatchOrdering(t, open) })
	t.Run("SlowWatcher", func(t *testing.T) { testSlowWatcher(t, open) })
	t.Run("ConcurrentCAS", func(t *testing.T) { testConcurrentCAS(t, open) })
	t.Run("ConcurrentEverything", func(t *testing.T) { testConcurrentEverything(t, open) })
	t.Run("Compaction", func(t *testing.T) { testCompaction(t, open) })
	t.Run("CompactDuringReplay", func(t *testing.T) { testCompactDuringReplay(t, open) })
	t.Run("CompactorTurns", func(t *testing.T) { testCompactorTurns(t, open) })
	t.Run("Close", func(t *testing.T) { testClose(t, open) })
}

// withoutProgress hides store.EventProgress from watchers.
type withoutProgress struct{ store.Interface }

func (w withoutProgress) Watch(ctx context.Context, prefix string, rev int64) (<-chan store.Event, error) {
	in, err := w.Interface.Watch(ctx, prefix, rev)
	if err != nil {
		return nil, err
	}
	out := make(chan store.Event)
	go func() {
		defer close(out)
		for ev := range in {
			if ev.Type == store.EventProgress {
				continue
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				// Drain so the backend's watch goroutine can finish.
				for range in {
				}
				return
			}
		}
	}()
	return out, nil
}

// testProgress checks that progress events, where a backend sends them,
// never overtake an event of the watcher's prefix: every event received
// after a progress event at revision r has a revision above r.
func testProgress(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	ch, err := s.Watch(ctx, "/mine/", 0)
	require.NoError(t, err)
	var last int64
	for i := 0; i < 50; i++ {
		key := fmt.Sprintf("/other/%d", i)
		if i%5 == 0 {
			key = fmt.Sprintf("/mine/%d", i)
		}
		_, err := s.Create(ctx, key, []byte("v"))
		require.NoError(t, err)
	}
	end, err := s.Create(ctx, "/mine/end", []byte("v"))
	require.NoError(t, err)
	for {
		ev := receive(t, ch)
		require.NoError(t, ev.Err)
		require.Greater(t, ev.Revision, last, "revisions strictly increase, progress included")
		last = ev.Revision
		if ev.Type != store.EventProgress {
			require.Contains(t, ev.KV.Key, "/mine/")
		}
		if ev.Revision == end {
			return
		}
	}
}

// waitTimeout bounds every wait in the suite. It is a deadline against
// hangs, not a performance assertion.
const waitTimeout = 60 * time.Second

// testContext is a context that ends with the test or after waitTimeout.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// revision returns s's current revision.
func revision(t *testing.T, s store.Interface) int64 {
	t.Helper()
	rev, err := s.Revision(testContext(t))
	require.NoError(t, err)
	return rev
}

// listAll returns every KV under prefix at rev (0: current), paging with
// limit (0: one page).
func listAll(ctx context.Context, s store.Interface, prefix string, rev int64, limit int) ([]store.KV, int64, error) {
	var all []store.KV
	opts := store.ListOptions{Revision: rev, Limit: limit}
	for {
		res, err := s.List(ctx, prefix, opts)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, res.KVs...)
		if res.Continue == "" {
			return all, res.Revision, nil
		}
		opts = store.ListOptions{Continue: res.Continue, Limit: limit}
	}
}

// receive reads the next event from ch, failing the test if none arrives
// before the deadline or the channel closes.
func receive(t *testing.T, ch <-chan store.Event) store.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "watch channel closed early")
		return ev
	case <-time.After(waitTimeout):
		require.FailNow(t, "no watch event before the deadline")
	}
	return store.Event{}
}

// collect reads events from ch until pred returns true for the events so
// far, an Err event arrives, or the deadline passes (failing the test).
func collect(t *testing.T, ch <-chan store.Event, done func([]store.Event) bool) []store.Event {
	t.Helper()
	var got []store.Event
	deadline := time.After(waitTimeout)
	for !done(got) {
		select {
		case ev, ok := <-ch:
			if !ok {
				require.FailNow(t, "watch channel closed", "after %d events", len(got))
			}
			require.NoError(t, ev.Err, "watch ended after %d events", len(got))
			got = append(got, ev)
		case <-deadline:
			require.FailNow(t, "watch events missing at the deadline", "got %d", len(got))
		}
	}
	return got
}

// key builds a key from parts.
func key(format string, args ...any) string { return fmt.Sprintf(format, args...) }
