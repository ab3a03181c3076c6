package protobuf

import (
	"errors"
	"fmt"
)

var (
	// ErrNotProtobuf means the body does not start with the "k8s\x00" magic
	// of a Kubernetes protobuf message.
	ErrNotProtobuf = errors.New("protobuf: not a Kubernetes protobuf message (missing k8s\\x00 magic)")

	// ErrUnknownKind means the envelope names a kind this package has no
	// schema for; the API server answers 415 Unsupported Media Type naming it.
	ErrUnknownKind = errors.New("protobuf: no protobuf schema for kind")

	// ErrUnknownField means a JSON object has a member its kind's schema
	// does not know, so FromJSON cannot encode it without dropping data.
	ErrUnknownField = errors.New("protobuf: no protobuf field for a JSON member")

	// ErrMalformed means the body is not a well-formed message: a truncated
	// varint, a length beyond the remaining bytes, a wrong wire type for a
	// known field, an invalid value (a time out of range, raw JSON that does
	// not parse), nesting too deep, or output beyond the size limit.
	ErrMalformed = errors.New("protobuf: malformed message")
)

// malformed returns an error wrapping ErrMalformed that names the message
// type and field number where the problem was found.
func malformed(typ string, num uint32, format string, args ...any) error {
	where := typ
	if num != 0 {
		where = fmt.Sprintf("%s field %d", typ, num)
	}
	return fmt.Errorf("%w: %s: %s", ErrMalformed, where, fmt.Sprintf(format, args...))
}
