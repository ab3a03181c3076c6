package resourcequota

import "errors"

// ErrInvalidConfig: New was given no manager or a Config it cannot use.
var ErrInvalidConfig = errors.New("resourcequota: invalid config")
