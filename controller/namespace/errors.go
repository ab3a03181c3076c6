package namespace

import "errors"

var (
	// ErrInvalidOptions: New was given options it cannot use.
	ErrInvalidOptions = errors.New("namespace: invalid options")
	// ErrContentRemaining: a namespace still holds objects being deleted;
	// the reconcile looks again later.
	ErrContentRemaining = errors.New("namespace: content remaining")
	// ErrFinalize: the finalize subresource refused the request.
	ErrFinalize = errors.New("namespace: finalize failed")
)
