package fake

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/orkit/orkit/cri"
)

// Exec runs a streaming exec with the hello tool's model: "cat -" copies
// stdin to stdout, "ttysize" answers each line of stdin with the
// terminal's size ("ROWS COLS"), and every other command runs through the
// ExecSync model (WithExec) with its output written to the streams. With
// TTY, stderr is merged into stdout and "\n" becomes "\r\n", as a
// terminal's line discipline does.
func (r *Runtime) Exec(ctx context.Context, id string, req cri.ExecRequest) (int32, error) {
	if err := r.enter(ctx, "Exec"); err != nil {
		return 0, err
	}
	if len(req.Cmd) == 0 {
		return 0, fmt.Errorf("exec in container %q: empty command: %w", id, cri.ErrInvalidArgument)
	}
	cfg, err := r.execConfig(id)
	if err != nil {
		return 0, err
	}
	s := newExecStreams(req)
	stop := make(chan struct{})
	defer close(stop)
	sub, args := helloArgv(req.Cmd)
	if req.Resize != nil && req.TTY && sub != "ttysize" {
		go s.trackSize(req.Resize, stop)
	}
	switch {
	case sub == "cat" && firstArg(args) == "-":
		return s.run(ctx, id, func() int32 { return s.cat() })
	case sub == "ttysize":
		return s.run(ctx, id, func() int32 { return s.ttysize() })
	}
	res, err := r.opts.exec(ctx, cfg, slices.Clone(req.Cmd), 0)
	if err != nil {
		return 0, fmt.Errorf("exec in container %q: %w", id, err)
	}
	s.write(s.stdout, res.Stdout)
	s.write(s.stderr, res.Stderr)
	return res.ExitCode, nil
}

// execStreams are one Exec's streams and terminal state.
type execStreams struct {
	req            cri.ExecRequest
	stdout, stderr io.Writer

	mu   sync.Mutex
	size cri.TerminalSize
}

func newExecStreams(req cri.ExecRequest) *execStreams {
	s := &execStreams{req: req, stdout: orDiscard(req.Stdout), stderr: orDiscard(req.Stderr)}
	if req.TTY {
		s.stderr = s.stdout
	}
	return s
}

// run runs body (which reads stdin) until it returns or ctx ends; a body
// still blocked in a read of the caller's Stdin ends when the caller
// closes it.
func (s *execStreams) run(ctx context.Context, id string, body func() int32) (int32, error) {
	done := make(chan int32, 1)
	go func() { done <- body() }()
	select {
	case code := <-done:
		return code, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("exec in container %q: %w", id, ctx.Err())
	}
}

func (s *execStreams) write(w io.Writer, b []byte) {
	if s.req.TTY {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
	}
	if len(b) > 0 {
		w.Write(b)
	}
}

func (s *execStreams) cat() int32 {
	if s.req.Stdin == nil {
		return 0
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := s.req.Stdin.Read(buf)
		if n > 0 {
			s.write(s.stdout, buf[:n])
		}
		if err != nil {
			return 0
		}
	}
}

func (s *execStreams) ttysize() int32 {
	if !s.req.TTY {
		s.write(s.stderr, []byte("hello: ttysize: not a terminal\n"))
		return 1
	}
	if s.req.Stdin == nil {
		return 0
	}
	sc := bufio.NewScanner(s.req.Stdin)
	var size cri.TerminalSize
	for sc.Scan() && strings.TrimSuffix(sc.Text(), "\r") != "q" {
		// Take every size sent before the line: a caller that sends a
		// resize and then a line sees the new size.
		for drained := false; !drained; {
			select {
			case sz, ok := <-s.req.Resize:
				if ok {
					size = sz
				} else {
					s.req.Resize, drained = nil, true
				}
			default:
				drained = true
			}
		}
		s.write(s.stdout, fmt.Appendf(nil, "%d %d\n", size.Height, size.Width))
	}
	return 0
}

func (s *execStreams) trackSize(sizes <-chan cri.TerminalSize, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case size, ok := <-sizes:
			if !ok {
				return
			}
			s.mu.Lock()
			s.size = size
			s.mu.Unlock()
		}
	}
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
