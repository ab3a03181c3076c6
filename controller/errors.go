package controller

import "errors"

// Sentinel errors of the framework. Every error this package returns
// wraps one of these (test with errors.Is) or a server's *meta.Status.
var (
	// ErrInvalidConfig: a constructor was given a config it cannot use (an
	// empty name, a nil reconciler or client, lease durations out of order).
	ErrInvalidConfig = errors.New("controller: invalid config")
	// ErrAlreadyRunning: Run was called on something that is running.
	ErrAlreadyRunning = errors.New("controller: already running")
	// ErrCacheSyncTimeout: a controller's sources did not sync within its
	// CacheSyncTimeout.
	ErrCacheSyncTimeout = errors.New("controller: caches did not sync in time")
	// ErrTerminal marks a reconcile error that is logged and counted but
	// not retried; wrap errors with TerminalError and test with IsTerminal.
	ErrTerminal = errors.New("terminal reconcile error")
	// ErrPanic: a reconciler panicked; the panic is recovered, logged and
	// retried like an error.
	ErrPanic = errors.New("controller: reconciler panicked")
	// ErrLeaderElectionLost: a leader failed to renew its lease within the
	// renew deadline; what it ran has been stopped.
	ErrLeaderElectionLost = errors.New("controller: leader election lost")
	// ErrLeaseHeld: the lease is held by another identity whose term has
	// not expired (a normal outcome of one acquisition attempt).
	ErrLeaseHeld = errors.New("controller: lease held by another identity")
	// ErrNotReady: the manager is not running or its caches have not synced.
	ErrNotReady = errors.New("controller: not ready")
	// ErrUnhealthy: the manager stopped, failed, or (as a leader) has not
	// renewed its lease for longer than the lease duration.
	ErrUnhealthy = errors.New("controller: unhealthy")
)
