package etcd

import "errors"

// ErrInvalidConfig: New was given a Config it cannot use (no endpoints, a
// malformed Prefix).
var ErrInvalidConfig = errors.New("invalid etcd store config")
