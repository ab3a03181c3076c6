package protobuf

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendJSONString appends s to b as a JSON string. Invalid UTF-8 is
// replaced by U+FFFD, as encoding/json does.
func appendJSONString(b []byte, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscapedASCII(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendEscapedASCII(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	default:
		return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
	}
}

// appendBase64 appends p to b as a JSON string in standard base64, the
// JSON form of a []byte.
func appendBase64(b []byte, p []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, p)
	return append(b, '"')
}

// appendInt appends v as a JSON number.
func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// appendBool appends v as a JSON boolean.
func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }
