package scheduler_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startScheduler runs a scheduler with cfg (Client and Logger filled) until
// the test ends and waits for it to sync.
func startScheduler(t *testing.T, c *simcluster.Cluster, cfg scheduler.Config) *scheduler.Scheduler {
	t.Helper()
	cfg.Client = c.Scheduler
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	s, err := scheduler.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	select {
	case <-s.Synced():
	case <-time.After(30 * time.Second):
		t.Fatal("scheduler did not sync")
	}
	return s
}

// waitBound polls until every pod in names is bound (or the deadline) and
// returns the pods by name.
func waitBound(t *testing.T, c *client.Client, want int, timeout time.Duration) map[string]*core.Pod {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		list, err := client.For[core.Pod](c, "default").List(context.Background(), client.ListOptions{})
		require.NoError(t, err)
		bound := map[string]*core.Pod{}
		for i := range list.Items {
			if p := &list.Items[i]; p.Spec.NodeName != "" {
				bound[p.Name] = p
			}
		}
		if len(bound) >= want {
			return bound
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d pods bound after %v", len(bound), want, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
