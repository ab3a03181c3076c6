package containerd

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/containerd/containerd"

	"github.com/orkit/orkit/cri"
)

var _ cri.StdinAttacher = (*Runtime)(nil)

// stdinPipe is the runtime's end of a container's stdin FIFO. The shim
// holds a write end of its own, so the process's stdin stays open however
// many attaches come and go (and across a restart of the runtime) until
// closeIO asks the shim to close it; this end only carries what attaches
// write. Owned by the container's logCopier, which closes this end with
// the other FIFOs when the container exits or is removed. Safe for
// concurrent use.
type stdinPipe struct {
	w       io.WriteCloser
	once    bool         // StdinOnce: close when the first attach ends
	closeIO func() error // closes the process's stdin (the shim's end)

	wmu sync.Mutex // one attach's write at a time

	mu     sync.Mutex
	closed bool
}

// write writes b to the FIFO, unless stdin has been closed.
func (p *stdinPipe) write(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return io.ErrClosedPipe
	}
	_, err := p.w.Write(b)
	return err
}

// close closes the process's stdin: this end of the FIFO, then the
// shim's, so the process reads EOF once it has read what was written. It
// does not wait for a write blocked on a full pipe: closing the FIFO ends
// that write.
func (p *stdinPipe) close() error {
	p.mu.Lock()
	already := p.closed
	p.closed = true
	p.mu.Unlock()
	if already {
		return nil
	}
	p.w.Close()
	if p.closeIO == nil {
		return nil
	}
	return p.closeIO()
}

func (p *stdinPipe) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// attach copies in to the FIFO until in ends or ctx is done. The copying
// goroutine may still be blocked in a Read of in when attach returns (as
// with Exec's Stdin): what it reads afterwards is dropped, and the caller
// ends that Read by closing in.
func (p *stdinPipe) attach(ctx context.Context, in io.Reader) error {
	var ended atomic.Bool
	errc := make(chan error, 1)
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, rerr := in.Read(buf)
			if n > 0 && !ended.Load() {
				if werr := p.write(buf[:n]); werr != nil {
					errc <- fmt.Errorf("write stdin: %w", werr)
					return
				}
			}
			if rerr == io.EOF {
				errc <- nil
				return
			}
			if rerr != nil {
				errc <- fmt.Errorf("read attach input: %w", rerr)
				return
			}
		}
	}()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		err = ctx.Err()
	}
	ended.Store(true)
	if p.once {
		if cerr := p.close(); cerr != nil && err == nil {
			err = fmt.Errorf("close stdin: %w", cerr)
		}
	}
	return err
}

// closeStdin asks the shim to close the stdin of container id's task and
// records that it did (so a restarted runtime knows stdin is gone).
func (r *Runtime) closeStdin(id string) error {
	ctx, cancel := cleanupCtx(r.cfg.namespace)
	defer cancel()
	ctr, err := r.client.LoadContainer(ctx, id)
	if err != nil {
		return mapErr(err, "container "+id)
	}
	if _, err := ctr.SetLabels(ctx, map[string]string{labelStdinDone: "true"}); err != nil {
		r.cfg.log.Warn("record closed stdin", "id", id, "err", err)
	}
	task, err := ctr.Task(ctx, nil)
	if err != nil {
		return mapErr(err, "task of container "+id)
	}
	return mapErr(task.CloseIO(ctx, containerd.WithStdinCloser), "close stdin of container "+id)
}

// AttachStdin implements cri.StdinAttacher: it copies in to the stdin of
// the running container id, created with Stdin.
func (r *Runtime) AttachStdin(ctx context.Context, id string, in io.Reader) error {
	st, err := r.ContainerStatus(ctx, id)
	if err != nil {
		return err
	}
	if st.State != cri.ContainerRunning {
		return fmt.Errorf("container %s is not running: %w", id, cri.ErrFailedPrecondition)
	}
	r.mu.Lock()
	lc := r.logs[id]
	r.mu.Unlock()
	switch {
	case lc == nil || lc.stdin == nil:
		return fmt.Errorf("container %s was created without stdin: %w", id, cri.ErrFailedPrecondition)
	case lc.stdin.isClosed():
		return fmt.Errorf("container %s: stdin has been closed (stdinOnce): %w", id, cri.ErrFailedPrecondition)
	}
	return lc.stdin.attach(ctx, in)
}

// nopWriteCloser stands for the FIFO end of a stdin already closed.
type nopWriteCloser struct{}

func (nopWriteCloser) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
func (nopWriteCloser) Close() error              { return nil }
