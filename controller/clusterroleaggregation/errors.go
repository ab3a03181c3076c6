package clusterroleaggregation

import "errors"

// ErrInvalidConfig: New was given no manager.
var ErrInvalidConfig = errors.New("clusterroleaggregation: invalid config")
