package apiserver

import (
	"bytes"
	"io"
)

// typeMetaLen returns how many bytes after the opening brace of the JSON
// object raw its leading "kind" and "apiVersion" members take (0 when it
// has none). kube-apiserver writes the items of a list without them (the
// list names them once). It handles what Encode writes: those members
// first, plain strings, followed by "metadata"; any other shape gives 0.
func typeMetaLen(raw []byte) int {
	if len(raw) == 0 || raw[0] != '{' {
		return 0
	}
	rest := raw[1:]
	for {
		var ok bool
		switch {
		case bytes.HasPrefix(rest, []byte(`"kind":"`)):
			rest, ok = skipMember(rest, len(`"kind":"`))
		case bytes.HasPrefix(rest, []byte(`"apiVersion":"`)):
			rest, ok = skipMember(rest, len(`"apiVersion":"`))
		case bytes.HasPrefix(rest, []byte(`"metadata":`)):
			return len(raw) - 1 - len(rest)
		default:
			return 0
		}
		if !ok {
			return 0
		}
	}
}

// skipMember skips a member whose string value starts at offset start of
// b and is followed by a comma; ok is false for a value with escapes or a
// member that ends the object.
func skipMember(b []byte, start int) (rest []byte, ok bool) {
	end := bytes.IndexAny(b[start:], `"\`)
	if end < 0 || b[start+end] != '"' {
		return b, false
	}
	i := start + end + 1
	if i >= len(b) || b[i] != ',' {
		return b, false
	}
	return b[i+1:], true
}

// listWriter is what a list is written to: a bytes.Buffer or the
// buffered response.
type listWriter interface {
	io.Writer
	io.ByteWriter
}

// writeListItem writes the JSON object raw to buf as a list item: without
// its kind and apiVersion.
func writeListItem(buf listWriter, raw []byte) {
	n := typeMetaLen(raw)
	if n == 0 {
		buf.Write(raw)
		return
	}
	buf.WriteByte('{')
	buf.Write(raw[1+n:])
}
