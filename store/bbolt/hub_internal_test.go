package bbolt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not true at the deadline: %s", what)
		}
		time.Sleep(time.Millisecond) // polling with a deadline
	}
}

// TestWatchersLeaveTheHub checks that cancelled and too-slow watchers are
// removed from the hub and their goroutines end.
func TestWatchersLeaveTheHub(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), &Config{WatchBuffer: 4})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	for range 10 {
		_, err := s.Watch(ctx, "/a/", 0)
		require.NoError(t, err)
	}
	slow, err := s.Watch(t.Context(), "/a/", 0)
	require.NoError(t, err)
	eventually(t, func() bool { return s.hub.count() == 11 }, "11 watchers joined")
	cancel()
	eventually(t, func() bool { return s.hub.count() == 1 }, "cancelled watchers left")
	for i := range 4 + outBuffer + 8 { // the buffer, the channel, and more
		_, err := s.Create(t.Context(), fmt.Sprintf("/a/%d", i), nil)
		require.NoError(t, err)
	}
	eventually(t, func() bool { return s.hub.count() == 0 }, "slow watcher dropped")
	var last store.Event
	for ev := range slow {
		last = ev
	}
	require.True(t, errors.Is(last.Err, store.ErrWatcherTooSlow))
}

// TestProgressIsCoalescedAndDelivered: a watcher whose prefix sees no
// writes still learns the latest revision (the deferred progress is
// delivered by the timer), and progress never runs ahead of an event.
func TestProgressIsCoalescedAndDelivered(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), &Config{ProgressInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	ctx := t.Context()
	ch, err := s.Watch(ctx, "/mine/", 0)
	require.NoError(t, err)
	eventually(t, func() bool { return s.hub.count() == 1 }, "watcher joined")
	var last int64
	for i := range 100 {
		if last, err = s.Create(ctx, "/other/"+string(rune('a'+i%26))+string(rune('a'+i/26)), nil); err != nil {
			t.Fatal(err)
		}
	}
	var seen int64
	progressEvents := 0
	for seen < last {
		select {
		case ev := <-ch:
			require.Equal(t, store.EventProgress, ev.Type)
			require.Greater(t, ev.Revision, seen)
			seen = ev.Revision
			progressEvents++
		case <-time.After(30 * time.Second):
			t.Fatalf("progress stuck at %d of %d", seen, last)
		}
	}
	t.Logf("%d writes elsewhere, %d progress events", last, progressEvents)
	rev, err := s.Create(ctx, "/mine/k", nil)
	require.NoError(t, err)
	ev := <-ch
	require.Equal(t, store.EventPut, ev.Type)
	require.Equal(t, rev, ev.Revision)
}

func TestProgressDisabled(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), &Config{ProgressInterval: -1})
	require.NoError(t, err)
	defer s.Close()
	ctx := t.Context()
	ch, err := s.Watch(ctx, "/mine/", 0)
	require.NoError(t, err)
	eventually(t, func() bool { return s.hub.count() == 1 }, "watcher joined")
	for range 20 {
		_, err := s.Create(ctx, "/other/k"+time.Now().Format("150405.000000000"), nil)
		require.NoError(t, err)
	}
	rev, err := s.Create(ctx, "/mine/k", nil)
	require.NoError(t, err)
	ev := <-ch
	require.Equal(t, store.EventPut, ev.Type, "no progress events when disabled")
	require.Equal(t, rev, ev.Revision)
}
