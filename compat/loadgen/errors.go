package loadgen

import "errors"

// ErrInvalidConfig is returned (wrapped) for a Config a mode cannot run
// with, such as one without a REST config.
var ErrInvalidConfig = errors.New("loadgen: invalid config")
