package localpath

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidConfig: New was given no manager, or a Config it cannot
	// use (no BaseDir, a relative one).
	ErrInvalidConfig = errors.New("localpath: invalid config")
	// ErrOutsideBaseDir: a volume to clean up does not name a directory
	// directly inside BaseDir; nothing is removed.
	ErrOutsideBaseDir = errors.New("localpath: path outside the base directory")
	// ErrNoNode: no node can hold an Immediate volume (none is Ready and
	// schedulable); the claim is retried when nodes change.
	ErrNoNode = errors.New("localpath: no ready node for the volume")
)
