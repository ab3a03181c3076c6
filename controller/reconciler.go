package controller

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Request names the object a reconcile is for: namespace ("" for a
// cluster-scoped object) and name. It is key-only on purpose: a reconciler
// reads the current state from its caches, never from the event that
// caused the request, so several events for one object collapse into one
// reconcile (level-based, not edge-based).
type Request struct {
	Namespace string
	Name      string
}

// String returns "namespace/name", or "name" for a cluster-scoped object,
// the informer's cache key.
func (r Request) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Result tells the controller what to do with a request that reconciled
// without error. The zero value means done: the request is not seen again
// until something changes.
type Result struct {
	// Requeue asks for the request again after the queue's rate-limited
	// backoff (as after an error, without counting an error).
	Requeue bool
	// RequeueAfter, when positive, asks for the request again after that
	// long (not rate-limited; the backoff history is cleared). It takes
	// precedence over Requeue.
	RequeueAfter time.Duration
}

// IsZero reports whether r asks for nothing.
func (r Result) IsZero() bool { return !r.Requeue && r.RequeueAfter <= 0 }

// Reconciler drives the object named by a Request towards its desired
// state. Reconcile is called for one Request at a time (never twice
// concurrently for the same Request), possibly concurrently for different
// ones when the controller has several workers. It must be idempotent:
// it may be called any number of times for the same state.
//
// A nil error with a zero Result means done; an error is logged and
// retried with the queue's rate limiter, unless it wraps ErrTerminal
// (TerminalError), which is logged and counted but not retried. An error
// wrapping a 409 Conflict Status (apierrors.IsConflict: a write lost to a
// newer version) is retried the same way but is not a failure: it is
// logged at debug level only. So a reconciler returns conflicts as they
// come, without handling them itself. ctx is cancelled when the controller
// stops.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a function to a Reconciler, as http.HandlerFunc
// does for http.Handler.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

var _ Reconciler = ReconcilerFunc(nil)

// Reconcile calls f(ctx, req).
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

// TerminalError wraps err so that the controller logs and counts it but
// does not retry the request: retrying cannot help (invalid user input,
// an object the reconciler cannot handle). The request is seen again only
// when something changes. TerminalError(nil) returns nil.
func TerminalError(err error) error {
	if err == nil {
		return nil
	}
	return &terminalError{err: err}
}

type terminalError struct{ err error }

// Error returns "terminal reconcile error: <cause>".
func (e *terminalError) Error() string { return fmt.Sprintf("%s: %v", ErrTerminal, e.err) }

// Unwrap returns both the cause and ErrTerminal, so errors.Is works for
// either.
func (e *terminalError) Unwrap() []error { return []error{ErrTerminal, e.err} }

// IsTerminal reports whether err wraps ErrTerminal.
func IsTerminal(err error) bool { return errors.Is(err, ErrTerminal) }
