package containerd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"syscall"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/cio"

	"github.com/orkit/orkit/cri"
)

// Exec runs req.Cmd in the running container with its streams attached,
// as ExecSync does (same environment, user and working directory), and
// returns the exit code. Stdin is fed through a pipe this call owns: its
// EOF closes the process's standard input (CloseIO), and the pipe is
// closed when Exec returns so containerd's copier ends even if the
// caller's Stdin never does.
func (r *Runtime) Exec(ctx context.Context, id string, req cri.ExecRequest) (int32, error) {
	ctx, task, pspec, err := r.execTarget(ctx, id, req.Cmd)
	if err != nil {
		return 0, err
	}
	pspec.Terminal = req.TTY
	var stdin io.Reader
	var stdinW *io.PipeWriter
	if req.Stdin != nil {
		pr, pw := io.Pipe()
		stdin, stdinW = pr, pw
		defer pw.CloseWithError(io.ErrClosedPipe)
	}
	opts := []cio.Opt{cio.WithStreams(stdin, orDiscard(req.Stdout), orDiscard(req.Stderr)),
		cio.WithFIFODir(filepath.Join(r.cfg.stateDir, fifoDir))}
	if req.TTY {
		opts = append(opts, cio.WithTerminal)
	}
	proc, exitC, done, err := r.startProcess(ctx, task, id, &pspec, cio.NewCreator(opts...))
	if err != nil {
		return 0, err
	}
	defer done()
	stop := make(chan struct{})
	defer close(stop)
	if stdinW != nil {
		go feedStdin(ctx, proc, req.Stdin, stdinW)
	}
	if req.Resize != nil && req.TTY {
		go resizeLoop(ctx, proc, req.Resize, stop)
	}
	select {
	case st := <-exitC:
		proc.IO().Wait()
		code, _, err := st.Result()
		if err != nil {
			return 0, mapErr(err, "exec in "+id)
		}
		return int32(code), nil
	case <-ctx.Done():
		proc.Kill(context.WithoutCancel(ctx), syscall.SIGKILL)
		return 0, fmt.Errorf("exec %q in %s: %w", req.Cmd[0], id, ctx.Err())
	}
}

// feedStdin copies src into the process's stdin pipe w; at src's EOF it
// closes w and tells the shim to close the process's stdin, so the
// process reads EOF once it has read everything before it. It ends when
// src ends or a write fails (Exec closed w).
func feedStdin(ctx context.Context, proc containerd.Process, src io.Reader, w *io.PipeWriter) {
	if _, err := io.Copy(w, src); err != nil {
		w.CloseWithError(err)
		return
	}
	w.Close()
	proc.CloseIO(context.WithoutCancel(ctx), containerd.WithStdinCloser)
}

// resizeLoop applies terminal sizes from sizes until stop is closed.
func resizeLoop(ctx context.Context, proc containerd.Process, sizes <-chan cri.TerminalSize, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case s, ok := <-sizes:
			if !ok {
				return
			}
			if s.Width > 0 && s.Height > 0 {
				proc.Resize(ctx, uint32(s.Width), uint32(s.Height))
			}
		}
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
