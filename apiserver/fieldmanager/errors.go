package fieldmanager

import "errors"

// Sentinel errors, returned wrapped; check them with errors.Is.
var (
	// ErrInvalidManagedFields reports metadata.managedFields that cannot
	// be decoded: an unknown operation or fieldsType, a malformed fieldsV1.
	ErrInvalidManagedFields = errors.New("invalid managedFields")
	// ErrInvalidObject reports an object or an apply configuration that
	// does not fit the schema (an undeclared field, a value of the wrong
	// type, a list-map item without its key, duplicate items).
	ErrInvalidObject = errors.New("object does not match its schema")
	// ErrInvalidSchema reports a schema description SMD cannot use (an
	// unresolved $ref, a list-map key that is not a field).
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrConflict reports an apply that would take fields owned by other
	// managers; the error is a *ConflictError that lists them.
	ErrConflict = errors.New("apply conflict")
)
