package containerd_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

// waitStdout polls the container's log until its stdout holds want.
func waitStdout(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logText(readLog(t, path), "stdout"), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log %s never showed %q: %q", path, want, logText(readLog(t, path), "stdout"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStdinKeptOpen runs "cat -" (copy stdin to stdout until EOF): with
// stdin it keeps running across attaches, with stdinOnce it reads EOF when
// the first attach ends, without stdin it reads EOF at once.
func TestStdinKeptOpen(t *testing.T) {
	rt, env := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "stdin")

	plain := helloConfig("plain", "cat", "-")
	id := startContainer(t, rt, sb, sbCfg, plain)
	st := waitStatus(t, rt, id, exited)
	assert.Equal(t, int32(0), st.ExitCode, "no stdin: EOF at once")
	assert.ErrorIs(t, rt.AttachStdin(ctx, id, strings.NewReader("x")), cri.ErrFailedPrecondition)

	open := helloConfig("open", "cat", "-")
	open.Stdin = true
	id = startContainer(t, rt, sb, sbCfg, open)
	require.NoError(t, rt.AttachStdin(ctx, id, strings.NewReader("first\n")))
	waitStdout(t, logPath(sbCfg, open), "first\n")
	require.NoError(t, rt.AttachStdin(ctx, id, strings.NewReader("second\n")), "stdin stays open after an attach ends")
	waitStdout(t, logPath(sbCfg, open), "first\nsecond\n")
	st, err := rt.ContainerStatus(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, cri.ContainerRunning, st.State)
	// The shim holds stdin open: a new Runtime (after a restart of its
	// process) attaches to it as the old one did.
	require.NoError(t, rt.Close())
	rt = openRuntime(t, env)
	require.NoError(t, rt.AttachStdin(ctx, id, strings.NewReader("third\n")))
	waitStdout(t, logPath(sbCfg, open), "first\nsecond\nthird\n")
	// An attach whose input never ends returns with its context.
	pr, pw := io.Pipe()
	defer pw.Close()
	actx, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, rt.AttachStdin(actx, id, pr), context.Canceled)
	require.NoError(t, rt.StopContainer(ctx, id, 5*time.Second))

	once := helloConfig("once", "cat", "-")
	once.Stdin, once.StdinOnce = true, true
	id = startContainer(t, rt, sb, sbCfg, once)
	require.NoError(t, rt.AttachStdin(ctx, id, strings.NewReader("only\n")))
	st = waitStatus(t, rt, id, exited)
	assert.Equal(t, int32(0), st.ExitCode, "stdinOnce: EOF when the first attach ends")
	assert.Equal(t, "only\n", logText(readLog(t, logPath(sbCfg, once)), "stdout"))
	assert.ErrorIs(t, rt.AttachStdin(ctx, id, strings.NewReader("late\n")), cri.ErrFailedPrecondition)

	assert.ErrorIs(t, rt.AttachStdin(ctx, "nosuch", strings.NewReader("x")), cri.ErrNotFound)
}
