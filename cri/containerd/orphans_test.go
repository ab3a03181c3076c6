package containerd_test

import (
	"os"
	"path/filepath"
	"testing"

	containerd "github.com/containerd/containerd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

// TestOrphanedStateRemoved: state a crash left behind (files of objects
// containerd no longer has) is removed by the next New, and a sandbox can
// be made again over its own leftovers.
func TestOrphanedStateRemoved(t *testing.T) {
	rt1, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt1, "orphan")
	keep, _ := runPod(t, rt1, "keep")
	// A crash that lost the containerd objects of sb but not its files.
	raw := env.Client(t)
	ctr, err := raw.LoadContainer(ctx, sb)
	require.NoError(t, err)
	task, err := ctr.Task(ctx, nil)
	require.NoError(t, err)
	_, err = task.Delete(ctx, containerd.WithProcessKill)
	require.NoError(t, err)
	require.NoError(t, ctr.Delete(ctx, containerd.WithSnapshotCleanup))
	for _, sub := range []string{"sandboxes", "fifo"} {
		require.NoError(t, os.MkdirAll(filepath.Join(env.StateDir, sub, "feedface"), 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(env.StateDir, "netns", "feedface"), nil, 0o444))

	// The same sandbox can be made again over its leftovers.
	again, err := rt1.RunPodSandbox(ctx, sbCfg)
	require.NoError(t, err)
	assert.Equal(t, sb, again)
	st, err := rt1.PodSandboxStatus(ctx, again)
	require.NoError(t, err)
	assert.Equal(t, cri.SandboxReady, st.State)
	require.NoError(t, rt1.Close())

	openRuntime(t, env)
	for _, sub := range []string{"netns", "sandboxes"} {
		assert.ElementsMatch(t, []string{sb, keep}, dirEntries(t, filepath.Join(env.StateDir, sub)), sub)
	}
	assert.NotContains(t, dirEntries(t, filepath.Join(env.StateDir, "fifo")), "feedface")
}
