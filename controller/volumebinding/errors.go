package volumebinding

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use (a local
	// storage class without a directory, a relative directory).
	ErrInvalidConfig = errors.New("volumebinding: invalid config")
	// ErrOutsideDir: a volume's path to remove is not inside the
	// provisioner's directory; nothing is removed.
	ErrOutsideDir = errors.New("volumebinding: path outside the provisioner directory")
)
