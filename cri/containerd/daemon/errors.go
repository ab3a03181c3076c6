package daemon

import "errors"

// Sentinel errors, wrapped with detail; check with errors.Is.
var (
	// ErrMissingPrerequisite: not root, or a binary (containerd, runc,
	// the shim) is missing. The error names what is missing.
	ErrMissingPrerequisite = errors.New("missing prerequisite")
	// ErrStart: the daemon exited or did not answer before the deadline;
	// the error carries the tail of its log.
	ErrStart = errors.New("containerd did not start")
)
