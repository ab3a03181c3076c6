package rootcacert

import "errors"

// ErrInvalidConfig: New was given no manager or no CA bundle.
var ErrInvalidConfig = errors.New("rootcacert: invalid config")
