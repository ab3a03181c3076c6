package volumebinding

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidConfig: New was given no manager.
	ErrInvalidConfig = errors.New("volumebinding: invalid config")
)
