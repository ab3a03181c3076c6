package standard

import "errors"

// ErrInvalidConfig: Add was given no manager, or a Config naming a
// controller that does not exist.
var ErrInvalidConfig = errors.New("standard: invalid config")
