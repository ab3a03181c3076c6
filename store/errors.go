package store

import "errors"

// Sentinel errors. Backends wrap them with the key or revision concerned;
// check with errors.Is.
var (
	// ErrNotFound: the key does not exist.
	ErrNotFound = errors.New("key not found")
	// ErrAlreadyExists: Create found the key present.
	ErrAlreadyExists = errors.New("key already exists")
	// ErrConflict: the key's modification revision differs from the expected one.
	ErrConflict = errors.New("revision conflict")
	// ErrTooOld: the requested revision has been compacted away.
	ErrTooOld = errors.New("revision has been compacted")
	// ErrFutureRevision: the requested revision has not been written yet.
	ErrFutureRevision = errors.New("revision is in the future")
	// ErrTooLarge: the value exceeds MaxValueSize.
	ErrTooLarge = errors.New("value too large")
	// ErrInvalidKey: the key is malformed (see ValidateKey): empty, too long,
	// not starting with "/", or holding NUL, empty, "." or ".." segments.
	ErrInvalidKey = errors.New("invalid key")
	// ErrInvalidContinue: the continue token is malformed or from another prefix.
	ErrInvalidContinue = errors.New("invalid continue token")
	// ErrWatcherTooSlow: the watcher fell too far behind and was ended.
	ErrWatcherTooSlow = errors.New("watcher fell behind and was ended")
	// ErrCorrupt: the database file is damaged or is not an orkit store.
	ErrCorrupt = errors.New("database is corrupt or not an orkit store")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store is closed")
)
