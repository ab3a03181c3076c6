package dns

import "errors"

// ErrInvalidConfig: a required Config field is missing.
var ErrInvalidConfig = errors.New("dns: invalid config")
