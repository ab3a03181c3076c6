package testnode

import "errors"

// ErrInvalidOptions: New was given options it cannot use.
var ErrInvalidOptions = errors.New("testnode: invalid options")
