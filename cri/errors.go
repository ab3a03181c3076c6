package cri

import "errors"

// Sentinel errors. Implementations wrap them with the object concerned
// ("container %q: %w"); callers check them with errors.Is.
var (
	// ErrNotFound: the sandbox or container does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: a sandbox or container with the same identity
	// (name, namespace, uid and attempt; or ID) exists.
	ErrAlreadyExists = errors.New("already exists")
	// ErrInvalidArgument: the request is malformed (missing metadata,
	// empty image, bad filter, ...). Nothing was changed.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrFailedPrecondition: the object is not in a state that allows the
	// operation (start a container that is not CREATED, create a container
	// in a sandbox that is not READY, exec in a container not RUNNING).
	ErrFailedPrecondition = errors.New("failed precondition")
	// ErrImageNotFound: the image is not present on the node (ImageStatus,
	// CreateContainer) or not in the registry (PullImage).
	ErrImageNotFound = errors.New("image not found")
	// ErrUnauthorized: the registry refused the credentials (or demanded
	// some that were not given).
	ErrUnauthorized = errors.New("registry authorization failed")
	// ErrInvalidImage: an image name, reference or imported archive is
	// malformed.
	ErrInvalidImage = errors.New("invalid image")
	// ErrTimeout: the operation's own timeout (ExecSync) elapsed.
	ErrTimeout = errors.New("timed out")
	// ErrUnavailable: the runtime (daemon) cannot be reached.
	ErrUnavailable = errors.New("runtime unavailable")
	// ErrClosed: the Runtime value has been closed.
	ErrClosed = errors.New("runtime is closed")
)
