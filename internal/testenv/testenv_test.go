package testenv_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri/containerd/daemon"
	"github.com/orkit/orkit/internal/testenv"
)

func TestEnvLifecycle(t *testing.T) {
	var dir string
	t.Run("env", func(t *testing.T) {
		e := testenv.New(t)
		dir = e.Daemon.Dir()
		c := e.Client(t)
		ctx := context.Background()
		for _, ref := range []string{e.PauseImage, e.HelloImage} {
			img, err := c.GetImage(ctx, ref)
			require.NoError(t, err, ref)
			ok, err := img.IsUnpacked(ctx, "overlayfs")
			require.NoError(t, err)
			assert.True(t, ok, "%s unpacked", ref)
		}
		pid := e.Daemon.PID()
		e.Restart(t)
		assert.NotEqual(t, pid, e.Daemon.PID())
		_, err := e.Client(t).GetImage(ctx, e.HelloImage)
		require.NoError(t, err, "images survive a restart")
	})
	if dir == "" {
		return
	}
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "cleanup removed %s", dir)
	mps, err := daemon.MountsUnder(dir)
	require.NoError(t, err)
	assert.Empty(t, mps)
}

func TestEnvTmpfsRoot(t *testing.T) {
	var dir string
	t.Run("env", func(t *testing.T) {
		e := testenv.New(t, testenv.TmpfsRoot())
		dir = e.Daemon.Dir()
		mps, err := daemon.MountsUnder(dir + "/root")
		require.NoError(t, err)
		assert.Contains(t, mps, dir+"/root")
		e.Restart(t)
		_, err = e.Client(t).GetImage(context.Background(), e.HelloImage)
		require.NoError(t, err, "images survive a daemon restart on tmpfs")
	})
	if dir == "" {
		return
	}
	mps, err := daemon.MountsUnder(dir)
	require.NoError(t, err)
	assert.Empty(t, mps)
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err))
}
