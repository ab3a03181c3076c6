package resourceclaim

import "errors"

// ErrInvalidConfig: New was given no manager.
var ErrInvalidConfig = errors.New("resourceclaim: invalid config")
