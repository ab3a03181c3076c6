package statefulset

import "errors"

// Sentinel errors of the package.
var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("statefulset: invalid config")
	// ErrInvalidSelector: a StatefulSet's selector cannot be parsed or does
	// not match its own pod template; the set is not reconciled until it
	// changes.
	ErrInvalidSelector = errors.New("statefulset: invalid selector")
	// ErrBadRevision: a ControllerRevision's data is not a pod template.
	ErrBadRevision = errors.New("statefulset: unreadable controller revision")
)
