package informer

import "errors"

// Sentinel errors; wrapped with detail, test them with errors.Is.
var (
	// ErrNotFound: a lister found no object under the key.
	ErrNotFound = errors.New("informer: object not found")
	// ErrIndexNotFound: ByIndex named an index the store does not have.
	ErrIndexNotFound = errors.New("informer: no such index")
	// ErrIndexConflict: AddIndexers named an index that already exists.
	ErrIndexConflict = errors.New("informer: index already exists")
	// ErrIndexFunc: an index function failed on an object; the store is unchanged.
	ErrIndexFunc = errors.New("informer: index function failed")
	// ErrInvalidObject: an object without a name, or nil.
	ErrInvalidObject = errors.New("informer: invalid object")
	// ErrDecode: the server sent a body or watch frame that does not decode.
	ErrDecode = errors.New("informer: decode")
	// ErrAlreadyRunning: Run was called on an informer that is running.
	ErrAlreadyRunning = errors.New("informer: already running")
	// ErrTransform: the Transform hook failed on an object; it is skipped.
	ErrTransform = errors.New("informer: transform failed")
	// ErrTypeMismatch: the factory holds an informer of another type under the name.
	ErrTypeMismatch = errors.New("informer: informer type mismatch")
)
