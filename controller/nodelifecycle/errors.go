package nodelifecycle

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidOptions: a constructor was given options it cannot use.
	ErrInvalidOptions = errors.New("nodelifecycle: invalid options")
)
