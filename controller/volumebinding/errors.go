package volumebinding

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidOptions: New was given options it cannot use (a local
	// storage class without a directory, a relative directory).
	ErrInvalidOptions = errors.New("volumebinding: invalid options")
	// ErrOutsideDir: a volume's path to remove is not inside the
	// provisioner's directory; nothing is removed.
	ErrOutsideDir = errors.New("volumebinding: path outside the provisioner directory")
)
