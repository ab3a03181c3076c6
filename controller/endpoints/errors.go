package endpoints

import "errors"

// ErrInvalidOptions: New was given options it cannot use.
var ErrInvalidOptions = errors.New("endpoints: invalid options")
