package replicaset

import "errors"

// ErrInvalidConfig: New was given no manager or a Config it cannot use.
var ErrInvalidConfig = errors.New("replicaset: invalid config")
