package containerd_test

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

// lockedBuffer is an io.Writer read while being written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAttach: two clients attached to "cat -" (stdin, stdinOnce) both see
// what the process writes; the one that feeds stdin ends it (stdinOnce),
// and both attaches return when the process exits. Attaching to an exited
// or missing container fails.
func TestAttach(t *testing.T) {
	rt, _ := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "attach")
	cfg := helloConfig("cat", "cat", "-")
	cfg.Stdin, cfg.StdinOnce = true, true
	id := startContainer(t, rt, sb, sbCfg, cfg)

	var watcher lockedBuffer
	watched := make(chan error, 1)
	go func() { watched <- rt.Attach(ctx, id, cri.AttachRequest{Stdout: &watcher}) }()
	pr, pw := io.Pipe()
	var out, errOut lockedBuffer
	fed := make(chan error, 1)
	go func() { fed <- rt.Attach(ctx, id, cri.AttachRequest{Stdin: pr, Stdout: &out, Stderr: &errOut}) }()
	// The watcher is attached once it sees output: write until it does.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(watcher.String(), "ping\n") {
		require.True(t, time.Now().Before(deadline), "no output reached the watcher")
		io.WriteString(pw, "ping\n")
		time.Sleep(50 * time.Millisecond)
	}
	pw.Close() // stdinOnce: the process reads EOF and exits
	require.NoError(t, <-fed)
	require.NoError(t, <-watched)
	assert.Contains(t, out.String(), "ping\n")
	assert.Empty(t, errOut.String())
	waitStatus(t, rt, id, exited)

	assert.ErrorIs(t, rt.Attach(ctx, id, cri.AttachRequest{Stdout: io.Discard}), cri.ErrFailedPrecondition)
	assert.ErrorIs(t, rt.Attach(ctx, "nosuch", cri.AttachRequest{Stdout: io.Discard}), cri.ErrNotFound)
}
