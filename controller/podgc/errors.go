package podgc

import "errors"

// ErrInvalidConfig: New was given no manager or a Config it cannot use.
var ErrInvalidConfig = errors.New("podgc: invalid config")
