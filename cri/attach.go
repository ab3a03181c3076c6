package cri

import (
	"context"
	"io"
)

// StdinAttacher is the optional ability of a runtime that keeps the stdin
// of a container created with ContainerConfig.Stdin open (the process
// reads nothing, not EOF, until a client writes) and lets a client write
// to it: the stdin half of an attach. Check for it with a type assertion.
type StdinAttacher interface {
	// AttachStdin copies in to the running container's stdin until in
	// ends (EOF or error) or ctx is done, and returns then. With
	// ContainerConfig.StdinOnce the container's stdin is closed when the
	// first attach ends, so the process reads EOF, and stays closed;
	// without it stdin stays open for the next attach. Concurrent attaches
	// write in turn, one Read's worth at a time. Errors: ErrNotFound;
	// ErrFailedPrecondition when the container was created without Stdin,
	// is not running, or its stdin has been closed.
	AttachStdin(ctx context.Context, containerID string, in io.Reader) error
}

// Attacher is the optional ability of a runtime to attach a client to the
// main process of a running container, as kubectl attach (and kubectl run
// -i, kubectl debug -i) does. Check for it with a type assertion.
type Attacher interface {
	// Attach connects req to the running container id: what the process
	// writes from now on goes to req.Stdout and req.Stderr (with a
	// terminal, all of it to Stdout), req.Stdin is copied to its stdin as
	// AttachStdin does (ignored when the container was created without
	// Stdin), and req.Resize resizes its terminal. Attach returns nil once
	// the process's output has ended (it exited), or, for a container
	// without StdinOnce, once req.Stdin has ended; else ctx's error. Several
	// attaches may run at once; each receives all output. A slow writer
	// slows the container's output (it is not dropped). Errors:
	// ErrNotFound; ErrFailedPrecondition when the container is not
	// running.
	Attach(ctx context.Context, containerID string, req AttachRequest) error
}

// AttachRequest holds the streams of an Attach; the caller owns them.
// Stdin may still be in a Read when Attach returns: the caller ends it by
// closing what Stdin reads from.
type AttachRequest struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Resize, when not nil, carries terminal size changes; Attach stops
	// reading it when it returns.
	Resize <-chan TerminalSize
}
