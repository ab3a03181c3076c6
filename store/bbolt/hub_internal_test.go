package bbolt

import (
	"context"
	"errors"
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
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), &Options{WatchBuffer: 4})
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
	for i := range 8 {
		_, err := s.Create(t.Context(), "/a/"+string(rune('a'+i)), nil)
		require.NoError(t, err)
	}
	eventually(t, func() bool { return s.hub.count() == 0 }, "slow watcher dropped")
	var last store.Event
	for ev := range slow {
		last = ev
	}
	require.True(t, errors.Is(last.Err, store.ErrWatcherTooSlow))
}
