package field

import (
	"fmt"
	"reflect"
	"strings"
)

// ErrorType is the kind of a validation failure; its values are the
// "reason" strings of Kubernetes' StatusCause.
type ErrorType string

// The validation failure kinds.
const (
	ErrorTypeNotFound     ErrorType = "FieldValueNotFound"
	ErrorTypeRequired     ErrorType = "FieldValueRequired"
	ErrorTypeDuplicate    ErrorType = "FieldValueDuplicate"
	ErrorTypeInvalid      ErrorType = "FieldValueInvalid"
	ErrorTypeTypeInvalid  ErrorType = "FieldValueTypeInvalid"
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	ErrorTypeForbidden    ErrorType = "FieldValueForbidden"
	ErrorTypeTooLong      ErrorType = "FieldValueTooLong"
	ErrorTypeTooMany      ErrorType = "FieldValueTooMany"
	ErrorTypeInternal     ErrorType = "InternalError"
)

// text is how each kind reads in a message.
var text = map[ErrorType]string{
	ErrorTypeNotFound:     "Not found",
	ErrorTypeRequired:     "Required value",
	ErrorTypeDuplicate:    "Duplicate value",
	ErrorTypeInvalid:      "Invalid value",
	ErrorTypeTypeInvalid:  "Invalid value",
	ErrorTypeNotSupported: "Unsupported value",
	ErrorTypeForbidden:    "Forbidden",
	ErrorTypeTooLong:      "Too long",
	ErrorTypeTooMany:      "Too many",
	ErrorTypeInternal:     "Internal error",
}

// Error is one validation failure at one field.
type Error struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
}

// Error renders the failure as Kubernetes does:
// `spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
func (e *Error) Error() string {
	return e.Field + ": " + e.ErrorBody()
}

// ErrorBody is Error without the field path (`Invalid value: -1: must be
// greater than or equal to 0`): the message of a StatusCause, whose field
// is carried beside it.
func (e *Error) ErrorBody() string {
	var b strings.Builder
	b.WriteString(text[e.Type])
	switch e.Type {
	case ErrorTypeRequired, ErrorTypeForbidden, ErrorTypeTooLong, ErrorTypeInternal:
	default:
		switch v := e.BadValue.(type) {
		case string:
			fmt.Fprintf(&b, ": %q", v)
		case nil:
		default:
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
				// A named string type (an enum) quotes as a string does,
				// as Kubernetes prints it (%#v).
				fmt.Fprintf(&b, ": %q", rv.String())
			} else {
				fmt.Fprintf(&b, ": %v", v)
			}
		}
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

// TypeInvalid reports a value of the wrong type; it reads as Invalid
// ("Invalid value: ...") but its reason is FieldValueTypeInvalid.
func TypeInvalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeTypeInvalid, Field: p.String(), BadValue: value, Detail: detail}
}

// Required reports a missing value.
func Required(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: p.String(), Detail: detail}
}

// Invalid reports a malformed value.
func Invalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: p.String(), BadValue: value, Detail: detail}
}

// NotSupported reports a value outside the allowed set.
func NotSupported(p *Path, value any, valid []string) *Error {
	d := ""
	if len(valid) > 0 {
		q := make([]string, len(valid))
		for i, v := range valid {
			q[i] = fmt.Sprintf("%q", v)
		}
		d = "supported values: " + strings.Join(q, ", ")
	}
	return &Error{Type: ErrorTypeNotSupported, Field: p.String(), BadValue: value, Detail: d}
}

// Forbidden reports a value that may not be set (or changed).
func Forbidden(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: p.String(), Detail: detail}
}

// Duplicate reports a value that must be unique.
func Duplicate(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Field: p.String(), BadValue: value}
}

// NotFound reports a reference to something that does not exist.
func NotFound(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeNotFound, Field: p.String(), BadValue: value}
}

// TooLong reports a value longer than max.
func TooLong(p *Path, value any, max int) *Error {
	return &Error{Type: ErrorTypeTooLong, Field: p.String(), BadValue: value,
		Detail: fmt.Sprintf("may not be more than %d bytes", max)}
}

// TooMany reports a list with more than max items.
func TooMany(p *Path, actual, max int) *Error {
	return &Error{Type: ErrorTypeTooMany, Field: p.String(), BadValue: actual,
		Detail: fmt.Sprintf("must have at most %d items", max)}
}

// InternalError reports a failure of the validator itself.
func InternalError(p *Path, err error) *Error {
	return &Error{Type: ErrorTypeInternal, Field: p.String(), Detail: err.Error()}
}

// ErrorList is the result of validating an object; empty means valid.
type ErrorList []*Error

// ToAggregate joins the list into one error, or returns nil when empty.
func (l ErrorList) ToAggregate() error {
	if len(l) == 0 {
		return nil
	}
	return aggregate(l)
}

type aggregate ErrorList

func (a aggregate) Error() string {
	if len(a) == 1 {
		return a[0].Error()
	}
	msgs := make([]string, len(a))
	for i, e := range a {
		msgs[i] = e.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// Errors returns the list the aggregate was built from.
func (a aggregate) Errors() ErrorList { return ErrorList(a) }

// Unwrap lets errors.As find each *Error.
func (a aggregate) Unwrap() []error {
	out := make([]error, len(a))
	for i, e := range a {
		out[i] = e
	}
	return out
}
