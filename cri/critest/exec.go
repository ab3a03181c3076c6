package critest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader.
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

func testExec(t *testing.T, e *env) {
	sb, sbCfg := e.runSandbox(t, "stream-exec")
	id := e.createAndStart(t, sb, sbCfg, e.containerConfig("server"))
	e.waitState(t, id, cri.ContainerRunning)
	hello := e.h.hello()
	tests := []struct {
		name       string
		cmd        []string
		stdin      *string
		tty        bool
		wantStdout string
		wantStderr string
		wantCode   int32
	}{
		{name: "stdout", cmd: []string{hello, "echo", "hi", "there"}, wantStdout: "hi there\n"},
		{name: "stderr", cmd: []string{hello, "echo-err", "oops"}, wantStderr: "oops\n"},
		{name: "exit code", cmd: []string{hello, "exit", "3"}, wantCode: 3},
		{name: "stdin until EOF", cmd: []string{hello, "cat", "-"}, stdin: ptr("line 1\nline 2\n"), wantStdout: "line 1\nline 2\n"},
		{name: "empty stdin", cmd: []string{hello, "cat", "-"}, stdin: ptr("")},
		{name: "tty", cmd: []string{hello, "echo", "hi"}, tty: true, wantStdout: "hi\r\n"},
		{name: "tty stderr goes to the terminal", cmd: []string{hello, "echo-err", "e"}, tty: true, wantStdout: "e\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr lockedBuffer
			req := cri.ExecRequest{Cmd: tt.cmd, Stdout: &stdout, Stderr: &stderr, TTY: tt.tty}
			if tt.stdin != nil {
				req.Stdin = strings.NewReader(*tt.stdin)
			}
			ctx, cancel := context.WithTimeout(e.ctx, e.h.timeout())
			defer cancel()
			code, err := e.rt.Exec(ctx, id, req)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCode, code)
			assert.Equal(t, tt.wantStdout, stdout.String())
			assert.Equal(t, tt.wantStderr, stderr.String())
		})
	}
	t.Run("resize", func(t *testing.T) { testExecResize(t, e, id) })
	t.Run("context ends the process", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(e.ctx, 300*time.Millisecond)
		defer cancel()
		_, err := e.rt.Exec(ctx, id, cri.ExecRequest{Cmd: []string{hello, "sleep", "1h"}})
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("errors", func(t *testing.T) {
		_, err := e.rt.Exec(e.ctx, id, cri.ExecRequest{})
		require.ErrorIs(t, err, cri.ErrInvalidArgument, "empty command")
		_, err = e.rt.Exec(e.ctx, "no-such-container", cri.ExecRequest{Cmd: []string{hello, "echo"}})
		require.ErrorIs(t, err, cri.ErrNotFound)
		require.NoError(t, e.rt.StopContainer(e.ctx, id, 10*time.Second))
		e.waitState(t, id, cri.ContainerExited)
		_, err = e.rt.Exec(e.ctx, id, cri.ExecRequest{Cmd: []string{hello, "echo", "x"}})
		require.ErrorIs(t, err, cri.ErrFailedPrecondition, "exec in an exited container")
	})
}

// testExecResize runs "ttysize" on a terminal, resizes it and asks for the
// size until the new one shows (the resize and the question travel apart).
func testExecResize(t *testing.T, e *env, id string) {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	sizes := make(chan cri.TerminalSize, 1)
	ctx, cancel := context.WithTimeout(e.ctx, e.h.timeout())
	defer cancel()
	type result struct {
		code int32
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := e.rt.Exec(ctx, id, cri.ExecRequest{Cmd: []string{e.h.hello(), "ttysize"}, Stdin: stdinR,
			Stdout: stdoutW, TTY: true, Resize: sizes})
		stdoutW.Close()
		done <- result{code, err}
	}()
	sizes <- cri.TerminalSize{Width: 100, Height: 40}
	lines := bufio.NewScanner(stdoutR)
	deadline := time.Now().Add(e.h.timeout())
	var last string
	for last != "40 100" && time.Now().Before(deadline) {
		_, err := stdinW.Write([]byte("\n"))
		require.NoError(t, err)
		// A terminal echoes the input line; skip empty lines.
		for last = ""; last == ""; last = strings.TrimSpace(lines.Text()) {
			if !lines.Scan() {
				r := <-done
				t.Fatalf("ttysize ended early: exit code %d, err %v", r.code, r.err)
			}
		}
	}
	assert.Equal(t, "40 100", last)
	go io.Copy(io.Discard, stdoutR)
	_, err := stdinW.Write([]byte("q\n"))
	require.NoError(t, err)
	// Closing a terminal's input hangs its process up (SIGHUP): close
	// stdin only once "q" ended it.
	r := <-done
	stdinW.Close()
	require.NoError(t, r.err)
	assert.Equal(t, int32(0), r.code)
}

func ptr[T any](v T) *T { return &v }
