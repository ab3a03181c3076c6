package nodelifecycle

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("nodelifecycle: invalid config")
)
