package namespace

import "errors"

var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("namespace: invalid config")
	// ErrContentRemaining: a namespace still holds objects being deleted;
	// the reconcile looks again later.
	ErrContentRemaining = errors.New("namespace: content remaining")
	// ErrFinalize: the finalize subresource refused the request.
	ErrFinalize = errors.New("namespace: finalize failed")
)
