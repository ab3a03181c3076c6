package garbagecollector

import "errors"

// Sentinel errors of the package; errors returned wrap one of these or a
// server's *meta.Status.
var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("garbagecollector: invalid config")
	// ErrAlreadyRunning: Run was called twice.
	ErrAlreadyRunning = errors.New("garbagecollector: already running")
	// ErrUnresolvableOwner: an ownerReference names a kind that discovery
	// does not know, so the owner's existence cannot be checked; the
	// dependent is kept and checked again later.
	ErrUnresolvableOwner = errors.New("garbagecollector: owner kind cannot be resolved")
)
