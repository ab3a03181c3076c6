package endpointslice

import "errors"

// ErrInvalidConfig: New or NewMirroring was given no manager or a Config
// it cannot use.
var ErrInvalidConfig = errors.New("endpointslice: invalid config")
