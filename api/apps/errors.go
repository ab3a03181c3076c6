package apps

import "errors"

// ErrNotScalable is returned by ScaleOf and ApplyScale for an object that
// has no scale subresource.
var ErrNotScalable = errors.New("object has no scale subresource")
