package storageversionmigration

import "errors"

// ErrInvalidConfig: New was given no manager.
var ErrInvalidConfig = errors.New("storageversionmigration: invalid config")
