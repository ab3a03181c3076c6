package protobuf

import (
	"errors"
	"math"
)

// wireType is the low three bits of a protobuf tag.
type wireType uint8

const (
	wtVarint  wireType = 0
	wtFixed64 wireType = 1
	wtBytes   wireType = 2
	wtFixed32 wireType = 5
)

// maxFieldNumber is the largest field number protobuf allows.
const maxFieldNumber = 1<<29 - 1

var (
	errTruncatedVarint = errors.New("truncated varint")
	errVarintOverflow  = errors.New("varint overflows 64 bits")
	errTruncated       = errors.New("value truncated")
	errBadLength       = errors.New("length exceeds the remaining bytes")
	errFieldNumber     = errors.New("invalid field number")
	errGroup           = errors.New("groups (wire types 3 and 4) are not supported")
	errWireType        = errors.New("invalid wire type")
)

// wireField is one field read from the wire. For varint and fixed wire
// types the value is in v; for length-delimited fields the payload is b,
// a sub-slice of the input (never copied).
type wireField struct {
	num uint32
	typ wireType
	v   uint64
	b   []byte
}

// consumeVarint reads a base-128 varint from the start of b and returns it
// with the number of bytes it took.
func consumeVarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, 0, errTruncatedVarint
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errVarintOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errVarintOverflow
}

// readField reads one tag and its value from the start of b and returns the
// field and the number of bytes it took.
func readField(b []byte) (wireField, int, error) {
	tag, n, err := consumeVarint(b)
	if err != nil {
		return wireField{}, 0, err
	}
	num := tag >> 3
	if num == 0 || num > maxFieldNumber {
		return wireField{}, 0, errFieldNumber
	}
	f := wireField{num: uint32(num), typ: wireType(tag & 7)}
	rest := b[n:]
	switch f.typ {
	case wtVarint:
		v, m, err := consumeVarint(rest)
		if err != nil {
			return wireField{}, 0, err
		}
		f.v = v
		return f, n + m, nil
	case wtFixed64:
		if len(rest) < 8 {
			return wireField{}, 0, errTruncated
		}
		f.v = le64(rest)
		return f, n + 8, nil
	case wtFixed32:
		if len(rest) < 4 {
			return wireField{}, 0, errTruncated
		}
		f.v = uint64(le32(rest))
		return f, n + 4, nil
	case wtBytes:
		l, m, err := consumeVarint(rest)
		if err != nil {
			return wireField{}, 0, err
		}
		if l > uint64(len(rest)-m) {
			return wireField{}, 0, errBadLength
		}
		f.b = rest[m : m+int(l)]
		return f, n + m + int(l), nil
	case 3, 4:
		return wireField{}, 0, errGroup
	default:
		return wireField{}, 0, errWireType
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 {
	return uint64(le32(b)) | uint64(le32(b[4:]))<<32
}

// spans is the encoding of one message, possibly in several pieces: when a
// non-repeated message field occurs more than once, protobuf merges the
// occurrences as if their bytes were concatenated.
type spans [][]byte

// each calls fn for every field of s in wire order and stops at the first
// error. Errors from the wire are reported as malformed fields of typ.
func (s spans) each(typ string, fn func(wireField) error) error {
	for _, b := range s {
		for len(b) > 0 {
			f, n, err := readField(b)
			if err != nil {
				return malformed(typ, 0, "%v", err)
			}
			if err := fn(f); err != nil {
				return err
			}
			b = b[n:]
		}
	}
	return nil
}

// float64FromBits is math.Float64frombits, named for the call sites.
func float64FromBits(v uint64) float64 { return math.Float64frombits(v) }
