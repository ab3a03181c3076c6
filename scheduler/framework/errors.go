package framework

import "errors"

// Sentinel errors of the framework; match them with errors.Is.
var (
	// ErrNotFound: a CycleState key or a node is not there.
	ErrNotFound = errors.New("not found")
	// ErrInvalidProfile: a Profile is malformed (no predicates, a
	// duplicate plugin name, a negative weight, ...).
	ErrInvalidProfile = errors.New("invalid profile")
	// ErrWrongType: a CycleState value is not of the type asked for.
	ErrWrongType = errors.New("wrong type")
)
