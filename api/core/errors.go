package core

import "errors"

// ErrWrongType is reported (inside a field.InternalError) when a scheme
// hook registered for one kind is handed an object of another.
var ErrWrongType = errors.New("object of the wrong type")
