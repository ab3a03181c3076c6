package job

import "errors"

// ErrInvalidOptions is returned by New for unusable options.
var ErrInvalidOptions = errors.New("invalid job controller options")
