package patch

import (
	"errors"
	"strconv"
	"strings"
)

// pointer is a parsed RFC 6901 JSON pointer: its reference tokens, unescaped.
// The empty pointer addresses the whole document.
type pointer []string

// parsePointer parses s ("" or "/a/b~1c/0"). Each token is unescaped, ~1 to
// "/" and then ~0 to "~"; a "~" followed by anything else is an error.
func parsePointer(s string) (pointer, error) {
	if s == "" {
		return pointer{}, nil
	}
	if s[0] != '/' {
		return nil, errors.New(`a JSON pointer must be empty or start with "/"`)
	}
	parts := strings.Split(s[1:], "/")
	for i, tok := range parts {
		if !strings.Contains(tok, "~") {
			continue
		}
		for j := 0; j < len(tok); j++ {
			if tok[j] == '~' && (j+1 == len(tok) || (tok[j+1] != '0' && tok[j+1] != '1')) {
				return nil, errors.New(`invalid escape in JSON pointer: "~" must be followed by "0" or "1"`)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	return pointer(parts), nil
}

// isProperPrefixOf reports whether p addresses a strict ancestor of q.
func (p pointer) isProperPrefixOf(q pointer) bool {
	if len(p) >= len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// equalTo reports whether p and q address the same location.
func (p pointer) equalTo(q pointer) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// arrayIndex parses tok as an index into an array of length n. "-" means n
// (one past the end) and is allowed only when end is true, as is the index n
// itself; leading zeros and signs are rejected.
func arrayIndex(tok string, n int, end bool) (int, error) {
	if tok == "-" {
		if end {
			return n, nil
		}
		return 0, errors.New(`"-" (the end of the array) is not an element`)
	}
	if tok == "" || (len(tok) > 1 && tok[0] == '0') || strings.TrimLeft(tok, "0123456789") != "" {
		return 0, errors.New("array index " + strconv.Quote(tok) + " is not a non-negative integer")
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i > n || (i == n && !end) {
		return 0, errors.New("array index " + tok + " is out of bounds (length " + strconv.Itoa(n) + ")")
	}
	return i, nil
}
