package containerd_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

func TestSandboxTwoContainersShareNetwork(t *testing.T) {
	rt, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "web")
	assert.Contains(t, dirEntries(t, filepath.Join(env.StateDir, "runc", env.Namespace)), sb,
		"runc keeps its state under the runtime's state dir, not the host-wide /run/containerd/runc")
	st, err := rt.PodSandboxStatus(ctx, sb)
	require.NoError(t, err)
	assert.Equal(t, cri.SandboxReady, st.State)
	assert.NotEmpty(t, st.NetworkNamespacePath)

	a := startContainer(t, rt, sb, sbCfg, helloConfig("server"))
	waitExec(t, rt, a, "wget", "http://127.0.0.1:8080/healthz")
	bCfg := helloConfig("client", "wget", "http://127.0.0.1:8080/")
	b := startContainer(t, rt, sb, sbCfg, bCfg)
	bst := waitStatus(t, rt, b, exited)
	assert.Equal(t, int32(0), bst.ExitCode)
	assert.Equal(t, cri.ReasonCompleted, bst.Reason)
	out := logText(readLog(t, logPath(sbCfg, bCfg)), "stdout")
	assert.Equal(t, "web\n", out, "B fetched A's hostname over the shared network namespace")

	res, err := rt.ExecSync(ctx, a, []string{"cat", "/etc/hostname"}, 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "web\n", string(res.Stdout))
	res, err = rt.ExecSync(ctx, a, []string{"exit", "7"}, 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, int32(7), res.ExitCode)

	require.NoError(t, rt.StopPodSandbox(ctx, sb))
	st, err = rt.PodSandboxStatus(ctx, sb)
	require.NoError(t, err)
	assert.Equal(t, cri.SandboxNotReady, st.State)
	ast, err := rt.ContainerStatus(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, cri.ContainerExited, ast.State)
	require.NoError(t, rt.RemovePodSandbox(ctx, sb))
	_, err = rt.PodSandboxStatus(ctx, sb)
	assert.ErrorIs(t, err, cri.ErrNotFound)
	_, err = rt.ContainerStatus(ctx, a)
	assert.ErrorIs(t, err, cri.ErrNotFound)
	require.NoError(t, rt.RemovePodSandbox(ctx, sb), "idempotent")
	assert.False(t, strings.Contains(st.NetworkNamespacePath, " "))
}
