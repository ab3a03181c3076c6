package daemon_test

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri/containerd/daemon"
)

// startDaemon starts a private containerd for the test (hold
// /tmp/orkit-realnodes.lock), cleaned at the end.
func startDaemon(t *testing.T, opts ...daemon.Option) *daemon.Daemon {
	t.Helper()
	if err := daemon.CheckPrerequisites(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %v", err)
		}
		t.Skipf("prerequisite missing: %v", err)
	}
	dir, err := os.MkdirTemp("", "okd-")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := daemon.Start(ctx, dir, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		assert.NoError(t, d.Clean(cctx))
	})
	return d
}

// eventually polls cond every 10 ms for up to d.
func eventually(t *testing.T, d time.Duration, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSupervisedRestart: a containerd killed from outside is started again
// by its Daemon, again after a second death; Kill keeps it down until
// Restart; Stop ends supervision.
func TestSupervisedRestart(t *testing.T) {
	d := startDaemon(t, daemon.WithRestartBackoff(10*time.Millisecond, 50*time.Millisecond))
	ctx := context.Background()
	for i := 1; i <= 2; i++ {
		pid := d.PID()
		require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		eventually(t, 30*time.Second, func() bool { return d.PID() != pid }, "a new containerd")
		require.NoError(t, d.WaitReady(ctx))
		assert.Equal(t, i, d.Restarts())
	}

	d.Kill()
	assert.True(t, d.Exited())
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := d.WaitReady(wctx)
	require.ErrorIs(t, err, daemon.ErrStart, "Kill keeps it down")
	assert.True(t, d.Exited())

	require.NoError(t, d.Restart(ctx))
	assert.False(t, d.Exited())
	pid := d.PID()
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	eventually(t, 30*time.Second, func() bool { return d.PID() != pid }, "supervised again after Restart")
	require.NoError(t, d.WaitReady(ctx))

	d.Stop(10 * time.Second)
	assert.True(t, d.Exited())
	err = d.WaitReady(wctx)
	assert.True(t, errors.Is(err, daemon.ErrStart), "Stop ends supervision: %v", err)
}
