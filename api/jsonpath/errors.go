package jsonpath

import "errors"

// ErrSyntax is wrapped by Parse errors; the message names the offending
// position.
var ErrSyntax = errors.New("invalid JSONPath")
