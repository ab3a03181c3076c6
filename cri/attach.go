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
