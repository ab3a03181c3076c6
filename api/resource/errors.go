package resource

import "errors"

// The errors ParseQuantity (and so UnmarshalJSON) returns, always wrapped
// with the offending input; test for them with errors.Is.
var (
	// ErrFormatWrong reports input that does not have the shape of a
	// quantity: no digits, stray characters, spaces, a second '.'. The text
	// is the one Kubernetes uses.
	ErrFormatWrong = errors.New("quantities must match the regular expression '" + splitREString + "'")
	// ErrNumeric reports a numeric part that cannot be read.
	ErrNumeric = errors.New("unable to parse numeric part of quantity")
	// ErrSuffix reports a well-formed input whose suffix is not one of the
	// known units ("1i", "1K", "1e").
	ErrSuffix = errors.New("unable to parse quantity's suffix")
	// ErrTooLong reports input longer than 4096 bytes or with more than
	// 1000 significant digits. Kubernetes has no such limit; orkit has it so
	// that hostile input cannot make parsing or printing expensive.
	ErrTooLong = errors.New("quantity is too long")
	// ErrOutOfRange reports an exponent so large that the value is outside
	// what orkit represents: magnitudes up to 10^10000 and exponents written
	// as at most ±1000000.
	ErrOutOfRange = errors.New("quantity is out of range")
)

// splitREString is the regular expression Kubernetes quotes in its format
// error; orkit uses a hand-written scanner with the same grammar.
const splitREString = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
