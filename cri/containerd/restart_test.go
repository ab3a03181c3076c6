package containerd_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

// TestContainerdRestartRecovery restarts containerd (kill -9 and start on
// the same root) in the middle of a test; a new Runtime must report every
// sandbox and container as before, record the exit of a container that
// ended while no Runtime ran, and keep collecting logs.
func TestContainerdRestartRecovery(t *testing.T) {
	rt1, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt1, "survivor")
	sbStopped, _ := runPod(t, rt1, "stopped")
	require.NoError(t, rt1.StopPodSandbox(ctx, sbStopped))

	serverCfg := helloConfig("server")
	server := startContainer(t, rt1, sb, sbCfg, serverCfg)
	waitLog(t, logPath(sbCfg, serverCfg), "listening")
	failed := startContainer(t, rt1, sb, sbCfg, helloConfig("failed", "exit", "3"))
	waitStatus(t, rt1, failed, exited)
	createdCfg := helloConfig("created")
	createdCfg.Envs = []cri.KeyValue{{Key: "PORT", Value: "8082"}}
	created, err := rt1.CreateContainer(ctx, sb, createdCfg, sbCfg)
	require.NoError(t, err)
	lateCfg := helloConfig("late")
	lateCfg.Envs = []cri.KeyValue{{Key: "HELLO_EXIT_AFTER", Value: "2s"}, {Key: "HELLO_EXIT_CODE", Value: "4"}, {Key: "PORT", Value: "8081"}}
	late := startContainer(t, rt1, sb, sbCfg, lateCfg)
	require.NoError(t, rt1.UpdatePodSandboxNetwork(ctx, sb, cri.PodSandboxNetworkStatus{IP: "10.244.9.9"}))

	sandboxesBefore, err := rt1.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	require.NoError(t, err)
	before := map[string]cri.ContainerStatus{}
	for _, id := range []string{server, failed, created} {
		st, err := rt1.ContainerStatus(ctx, id)
		require.NoError(t, err)
		before[id] = st
	}
	require.NoError(t, rt1.Close())
	// "late" exits while no Runtime runs; then containerd is killed too.
	raw := env.Client(t)
	lateCtr, err := raw.LoadContainer(ctx, late)
	require.NoError(t, err)
	lateTask, err := lateCtr.Task(ctx, nil)
	require.NoError(t, err)
	exitC, err := lateTask.Wait(ctx)
	require.NoError(t, err)
	<-exitC
	env.Restart(t)

	rt2 := openRuntime(t, env)
	sandboxesAfter, err := rt2.ListPodSandbox(ctx, cri.PodSandboxFilter{})
	require.NoError(t, err)
	assert.Equal(t, sandboxesBefore, sandboxesAfter)
	sst, err := rt2.PodSandboxStatus(ctx, sb)
	require.NoError(t, err)
	assert.Equal(t, cri.SandboxReady, sst.State)
	assert.Equal(t, "10.244.9.9", sst.Network.IP)
	for id, want := range before {
		got, err := rt2.ContainerStatus(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, got, "container %s", want.Metadata.Name)
	}
	lst := waitStatus(t, rt2, late, exited)
	assert.Equal(t, int32(4), lst.ExitCode, "late log: %s", readFile(lst.LogPath))
	assert.Equal(t, cri.ReasonError, lst.Reason)

	// The server still serves, and its log copier was re-attached.
	waitExec(t, rt2, server, "wget", "http://127.0.0.1:8080/?after-restart")
	waitLog(t, logPath(sbCfg, serverCfg), "GET /?after-restart")
	require.NoError(t, rt2.StartContainer(ctx, created))
	waitStatus(t, rt2, created, func(s cri.ContainerStatus) bool { return s.State == cri.ContainerRunning })

	// A second restart with the runtime connected: it resubscribes.
	events := rt2.Events(ctx)
	env.Restart(t)
	require.NoError(t, rt2.StopContainer(ctx, created, 10*time.Second))
	st := waitStatus(t, rt2, created, exited)
	assert.Equal(t, int32(0), st.ExitCode)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.ContainerID == created && ev.Type == cri.ContainerEventExited {
				return
			}
		case <-deadline:
			t.Fatal("no EXITED event after containerd restarted under a live Runtime")
		}
	}
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestDaemonDown: with containerd gone, Status reports not ready (no
// error), calls fail with the caller's deadline, and Close returns.
func TestDaemonDown(t *testing.T) {
	rt, env := newRuntime(t)
	sb, _ := runPod(t, rt, "orphaned")
	env.Daemon.Kill()
	st, err := rt.Status(ctxT(t))
	require.NoError(t, err)
	c, ok := st.Condition(cri.RuntimeReady)
	require.True(t, ok)
	assert.False(t, c.Status)
	assert.Equal(t, "ContainerdUnavailable", c.Reason)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = rt.PodSandboxStatus(ctx, sb)
	require.Error(t, err)
	done := make(chan struct{})
	go func() { rt.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs while containerd is down")
	}
	env.Restart(t) // so that cleanup can remove the sandbox through containerd
}
