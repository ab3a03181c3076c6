package hostgw

import "errors"

// Sentinel errors; functions wrap them with the route or setting
// concerned. Check with errors.Is.
var (
	// ErrInvalidConfig: a Config misses a required field.
	ErrInvalidConfig = errors.New("invalid host-gw configuration")
	// ErrRoute: the kernel refused to list, add or delete a route.
	ErrRoute = errors.New("host-gw route")
)
