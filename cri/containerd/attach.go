package containerd

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/containerd/containerd"

	"github.com/orkit/orkit/cri"
)

var _ cri.Attacher = (*Runtime)(nil)

// outputFan passes what a container writes, besides to its log, to the
// clients attached at the time. Safe for concurrent use; a writer that
// fails is dropped.
type outputFan struct {
	mu   sync.Mutex
	subs map[*attachment]struct{}
}

// attachment is one attached client's output writers.
type attachment struct {
	stdout, stderr io.Writer
}

func (f *outputFan) add(a *attachment) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = map[*attachment]struct{}{}
	}
	f.subs[a] = struct{}{}
}

func (f *outputFan) remove(a *attachment) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs, a)
}

// write passes p, read from stream ("stdout" or "stderr"), on.
func (f *outputFan) write(stream string, p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for a := range f.subs {
		w := a.stdout
		if stream == "stderr" {
			w = a.stderr
		}
		if w == nil {
			continue
		}
		if _, err := w.Write(p); err != nil {
			delete(f.subs, a)
		}
	}
}

// fanReader is a stream's FIFO, teeing what is read to the attached.
type fanReader struct {
	r      io.Reader
	fan    *outputFan
	stream string
}

func (t fanReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.fan.write(t.stream, p[:n])
	}
	return n, err
}

// Attach implements cri.Attacher on the container's FIFOs: output is
// teed from the log copier; stdin goes through the stdin FIFO; resizes
// go to the task.
func (r *Runtime) Attach(ctx context.Context, id string, req cri.AttachRequest) error {
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
	if lc == nil {
		return fmt.Errorf("container %s has no output streams: %w", id, cri.ErrFailedPrecondition)
	}
	a := &attachment{stdout: req.Stdout, stderr: req.Stderr}
	lc.fan.add(a)
	defer lc.fan.remove(a)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	// Without StdinOnce the attach ends with the client's input, as CRI
	// runtimes do (the container's stdin stays open for the next one);
	// with it, stdin is closed and the attach lasts until the exit.
	stdinEnded := make(chan struct{})
	if req.Stdin != nil && lc.stdin != nil && !lc.stdin.isClosed() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := lc.stdin.attach(ctx, req.Stdin); err == nil && !lc.stdin.once {
				close(stdinEnded)
			}
		}()
	}
	if req.Resize != nil {
		if task, err := r.task(ctx, id); err == nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resizeLoop(ctx, task, req.Resize, ctx.Done())
			}()
		}
	}
	select {
	case <-lc.done:
		return nil
	case <-stdinEnded:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// task loads the task of container id.
func (r *Runtime) task(ctx context.Context, id string) (containerd.Task, error) {
	ctr, err := r.client.LoadContainer(ctx, id)
	if err != nil {
		return nil, mapErr(err, "container "+id)
	}
	t, err := ctr.Task(ctx, nil)
	return t, mapErr(err, "task of container "+id)
}
