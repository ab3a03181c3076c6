package apiserver

import "errors"

// ErrUndecodable: a stored value does not decode into its kind (the store
// holds damaged or foreign data). Storage.Decode wraps it with the
// resource and name; responses say only that the object could not be
// read, the server log has the rest.
var ErrUndecodable = errors.New("stored value does not decode")
