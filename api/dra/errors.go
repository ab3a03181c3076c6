package dra

import "errors"

// errTooComplex is a selector whose estimated cost exceeds MaxCELCost.
var errTooComplex = errors.New("too complex, exceeds cost limit")
