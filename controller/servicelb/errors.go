package servicelb

import "errors"

var (
	// ErrInvalidOptions: New was given options it cannot use.
	ErrInvalidOptions = errors.New("servicelb: invalid options")
	// ErrPoolExhausted: the loopback provider's pool has no address left.
	ErrPoolExhausted = errors.New("servicelb: load balancer address pool exhausted")
)
