package patch

import (
	"errors"
	"fmt"
)

// Sentinel errors returned (wrapped) by Apply. Check them with errors.Is.
var (
	// ErrInvalidPatch reports a patch that cannot be applied: malformed
	// JSON, the wrong top-level type, an unknown operation or directive, a
	// missing or out-of-range path, a list element without its merge key.
	ErrInvalidPatch = errors.New("invalid patch")
	// ErrTestFailed reports a JSON patch "test" operation whose value did
	// not match. It wraps ErrInvalidPatch, so errors.Is(err,
	// ErrInvalidPatch) holds for it too.
	ErrTestFailed = fmt.Errorf("%w: test operation failed", ErrInvalidPatch)
	// ErrUnsupported reports a patch type this package does not implement
	// (server-side apply, or an unknown media type).
	ErrUnsupported = errors.New("unsupported patch type")
	// ErrTooLarge reports a patch or a patched document over the size
	// limits (MaxDocumentSize, MaxOperations, MaxCopyBytes).
	ErrTooLarge = errors.New("patch result too large")
	// ErrInvalidDocument reports an original document that is not valid
	// JSON. Apply's callers pass their own stored object, so this is a
	// server-side fault rather than the client's.
	ErrInvalidDocument = errors.New("invalid document")
)

// OperationError describes the JSON patch operation that failed: its index
// in the patch array (from 0), its op and path, and why. It unwraps to Err,
// which is ErrInvalidPatch, ErrTestFailed or ErrTooLarge.
type OperationError struct {
	// Index is the operation's position in the patch array, from 0.
	Index int
	// Op is the operation's "op" member ("add", "remove", ...), or empty if
	// the operation had none.
	Op string
	// Path is the operation's "path" member as written.
	Path string
	// Reason says what went wrong, in words.
	Reason string
	// Err is the sentinel the error wraps.
	Err error
}

// Error returns `invalid patch: operation 2 (remove "/a/b"): path not found`.
func (e *OperationError) Error() string {
	op := e.Op
	if op == "" {
		op = "operation"
	}
	return fmt.Sprintf("%v: operation %d (%s %q): %s", e.Err, e.Index, op, e.Path, e.Reason)
}

// Unwrap returns the sentinel the error wraps.
func (e *OperationError) Unwrap() error { return e.Err }

// invalidf returns ErrInvalidPatch wrapped with a formatted reason.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidPatch, fmt.Sprintf(format, args...))
}
