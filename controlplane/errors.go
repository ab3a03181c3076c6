package controlplane

import "errors"

// ErrInvalidConfig: the Config cannot start a control plane (no DataDir, a
// bad listen address, a store factory that gives no store, a missing or
// malformed authentication or authorization file, an unknown or repeated
// authorization mode, a file given without its mode). Start returns it
// wrapped with the flag it concerns; check with errors.Is.
var ErrInvalidConfig = errors.New("controlplane: invalid configuration")
