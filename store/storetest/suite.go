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
func Run(t *testing.T, open Opener) {
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
	t.Run("Close", func(t *testing.T) { testClose(t, open) })
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
