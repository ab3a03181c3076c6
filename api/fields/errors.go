package fields

import "errors"

// ErrInvalidSelector is wrapped by every error Parse returns; the wrapping
// error quotes the selector and says what is wrong with which term.
var ErrInvalidSelector = errors.New("invalid field selector")
