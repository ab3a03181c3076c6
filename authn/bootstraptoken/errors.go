package bootstraptoken

import "errors"

// ErrMalformed reports a token that is not "<6 chars>.<16 chars>" of
// [a-z0-9].
var ErrMalformed = errors.New("bootstrap token: malformed, want [a-z0-9]{6}.[a-z0-9]{16}")
