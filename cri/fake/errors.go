package fake

import "errors"

// ErrUnknownMethod: an option or InjectFailure named a method cri.Runtime
// does not have.
var ErrUnknownMethod = errors.New("unknown cri.Runtime method")
