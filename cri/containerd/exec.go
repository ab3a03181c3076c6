package containerd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/cio"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/orkit/orkit/cri"
)

// ExecSync runs cmd in the running container with the container's
// environment, user and working directory, and returns its output.
func (r *Runtime) ExecSync(ctx context.Context, id string, cmd []string, timeout time.Duration) (cri.ExecResult, error) {
	ctx, task, pspec, err := r.execTarget(ctx, id, cmd)
	if err != nil {
		return cri.ExecResult{}, err
	}
	var stdout, stderr capWriter
	creator := cio.NewCreator(cio.WithStreams(nil, &stdout, &stderr),
		cio.WithFIFODir(filepath.Join(r.cfg.stateDir, fifoDir)))
	proc, exitC, done, err := r.startProcess(ctx, task, id, &pspec, creator)
	if err != nil {
		return cri.ExecResult{}, err
	}
	defer done()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case st := <-exitC:
		proc.IO().Wait()
		code, _, err := st.Result()
		if err != nil {
			return cri.ExecResult{}, mapErr(err, "exec in "+id)
		}
		return cri.ExecResult{Stdout: stdout.bytes(), Stderr: stderr.bytes(), ExitCode: int32(code)}, nil
	case <-timer:
		proc.Kill(context.WithoutCancel(ctx), syscall.SIGKILL)
		return cri.ExecResult{Stdout: stdout.bytes(), Stderr: stderr.bytes()},
			fmt.Errorf("exec %q in %s: no exit after %s: %w", cmd[0], id, timeout, cri.ErrTimeout)
	case <-ctx.Done():
		proc.Kill(context.WithoutCancel(ctx), syscall.SIGKILL)
		return cri.ExecResult{}, ctx.Err()
	}
}

// execTarget checks that container id runs and returns the namespaced
// ctx, its task and the process spec for cmd in it: the container's
// environment, user and working directory, no terminal.
func (r *Runtime) execTarget(ctx context.Context, id string, cmd []string) (context.Context, containerd.Task, specs.Process, error) {
	if len(cmd) == 0 {
		return nil, nil, specs.Process{}, fmt.Errorf("exec in %s: empty command: %w", id, cri.ErrInvalidArgument)
	}
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return nil, nil, specs.Process{}, err
	}
	if _, _, err := r.containerRecord(ctx, id); err != nil {
		return nil, nil, specs.Process{}, err
	}
	task, err := r.loadTask(ctx, id)
	if err != nil {
		return nil, nil, specs.Process{}, err
	}
	if task == nil {
		return nil, nil, specs.Process{}, fmt.Errorf("exec in %s: container is not running: %w", id, cri.ErrFailedPrecondition)
	}
	if st, err := task.Status(ctx); err != nil || st.Status != containerd.Running {
		return nil, nil, specs.Process{}, fmt.Errorf("exec in %s: container is not running: %w", id, cri.ErrFailedPrecondition)
	}
	spec, err := task.Spec(ctx)
	if err != nil {
		return nil, nil, specs.Process{}, mapErr(err, "spec of "+id)
	}
	pspec := *spec.Process
	pspec.Args, pspec.Terminal = slices.Clone(cmd), false
	return ctx, task, pspec, nil
}

// startProcess creates the exec process pspec in task with creator's IO,
// subscribes to its exit and starts it. done kills (if still running) and
// deletes the process and its IO; the caller calls it once, after reading
// the exit.
func (r *Runtime) startProcess(ctx context.Context, task containerd.Task, id string, pspec *specs.Process,
	creator cio.Creator) (proc containerd.Process, exitC <-chan containerd.ExitStatus, done func(), err error) {
	proc, err = task.Exec(ctx, randomID(), pspec, creator)
	if err != nil {
		return nil, nil, nil, mapErr(err, "exec in "+id)
	}
	done = func() {
		cctx, cancel := cleanupCtx(r.cfg.namespace)
		defer cancel()
		proc.Delete(cctx, containerd.WithProcessKill)
	}
	if exitC, err = proc.Wait(ctx); err != nil {
		done()
		return nil, nil, nil, mapErr(err, "exec in "+id)
	}
	if err := proc.Start(ctx); err != nil {
		done()
		return nil, nil, nil, mapErr(err, fmt.Sprintf("exec %q in %s", pspec.Args[0], id))
	}
	return proc, exitC, done, nil
}

// capWriter keeps the first cri.MaxExecOutput bytes written to it.
type capWriter struct {
	mu  sync.Mutex
	buf []byte
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := cri.MaxExecOutput - len(w.buf); room > 0 {
		if len(p) < room {
			room = len(p)
		}
		w.buf = append(w.buf, p[:room]...)
	}
	return len(p), nil
}

func (w *capWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.buf...)
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "exec-" + hex.EncodeToString(b)
}
