package cronjob

import "errors"

// ErrInvalidOptions is returned by New for unusable options.
var ErrInvalidOptions = errors.New("invalid cronjob controller options")
