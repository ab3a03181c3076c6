package daemonset

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("daemonset: invalid config")
	// ErrInvalidSelector: a DaemonSet's selector cannot be parsed or does
	// not match its own pod template; the set is not reconciled until it
	// changes.
	ErrInvalidSelector = errors.New("daemonset: invalid selector")
)
