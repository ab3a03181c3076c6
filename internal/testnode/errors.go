package testnode

import "errors"

// ErrInvalidConfig: New was given options it cannot use.
var ErrInvalidConfig = errors.New("testnode: invalid options")
