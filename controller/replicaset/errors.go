package replicaset

import "errors"

// ErrInvalidOptions: New was given options it cannot use.
var ErrInvalidOptions = errors.New("replicaset: invalid options")
