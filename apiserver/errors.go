package apiserver

import "errors"

// ErrUndecodable: a stored value does not decode into its kind (the store
// holds damaged or foreign data). Storage.Decode wraps it with the
// resource and name; responses say only that the object could not be
// read, the server log has the rest.
var ErrUndecodable = errors.New("stored value does not decode")

// ErrConversion: a View's conversion was given an object of a kind it does
// not convert (a wiring bug). Reads report the object as undecodable,
// writes as a 500 naming only the object.
var ErrConversion = errors.New("cannot convert object")
