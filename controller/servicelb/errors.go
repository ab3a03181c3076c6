package servicelb

import "errors"

var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("servicelb: invalid config")
	// ErrPoolExhausted: the loopback provider's pool has no address left.
	ErrPoolExhausted = errors.New("servicelb: load balancer address pool exhausted")
)
