package labels

import "errors"

// ErrInvalidSelector is wrapped by every error Parse, NewRequirement and
// SelectorFromLabelSelector return; the wrapping error names what is wrong.
var ErrInvalidSelector = errors.New("invalid label selector")
