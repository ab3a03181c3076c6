package cron

import "errors"

// ErrInvalid is wrapped by every error Parse returns.
var ErrInvalid = errors.New("invalid cron schedule")
