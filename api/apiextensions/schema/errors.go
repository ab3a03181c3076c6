package schema

import "errors"

// Sentinel errors of the package; returned errors wrap them (errors.Is).
var (
	// ErrInvalidJSON is returned for data that is not JSON or holds a value
	// JSON cannot (a NaN, an out-of-range number, a Go type with no JSON
	// form).
	ErrInvalidJSON = errors.New("invalid JSON")
	// ErrNotStructural is returned by Compile for a schema that is not
	// structural; the wrapped field errors say where.
	ErrNotStructural = errors.New("schema is not structural")
	// ErrInvalidSchema is returned by Compile for a schema it cannot turn
	// into a validator (an invalid pattern, a default of the wrong type, a
	// CEL rule that does not compile, ...); the message says where.
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrTooDeep is returned for a schema nested deeper than MaxDepth.
	ErrTooDeep = errors.New("schema nested too deeply")

	errBoolOrSchema = errors.New("boolean or JSON schema expected")
)

var errUnsupportedConversion = errors.New("type conversion error")
