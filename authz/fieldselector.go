package authz

import (
	"errors"
	"strings"
)

// errBadSelector: a field selector could not be parsed.
var errBadSelector = errors.New("malformed field selector")

// fieldTerm is one requirement of a field selector.
type fieldTerm struct {
	key, op, value string // op is "=", "==" or "!="
}

// parseFieldSelector splits a field selector as sent on the wire
// ("spec.nodeName=n1,status.phase!=Failed") into its terms. Values may
// escape ",", "=", "!" and "\" with a backslash, as Kubernetes'
// fields.EscapeValue does. An empty selector has no terms.
func parseFieldSelector(sel string) ([]fieldTerm, error) {
	var terms []fieldTerm
	if strings.TrimSpace(sel) == "" {
		return nil, nil
	}
	for _, part := range splitUnescaped(sel) {
		t, err := parseFieldTerm(part)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return terms, nil
}

// splitUnescaped splits s on commas not preceded by a backslash.
func splitUnescaped(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ',':
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// parseFieldTerm parses "key=value", "key==value" or "key!=value".
func parseFieldTerm(s string) (fieldTerm, error) {
	for i := 0; i < len(s); i++ {
		var op string
		switch {
		case s[i] == '\\':
			return fieldTerm{}, errBadSelector // keys are never escaped
		case strings.HasPrefix(s[i:], "!="):
			op = "!="
		case strings.HasPrefix(s[i:], "=="):
			op = "=="
		case s[i] == '=':
			op = "="
		default:
			continue
		}
		key := strings.TrimSpace(s[:i])
		value, err := unescapeFieldValue(s[i+len(op):])
		if key == "" || err != nil {
			return fieldTerm{}, errBadSelector
		}
		return fieldTerm{key: key, op: op, value: value}, nil
	}
	return fieldTerm{}, errBadSelector
}

// unescapeFieldValue undoes fields.EscapeValue; an unescaped "," or "="
// or a dangling backslash is an error.
func unescapeFieldValue(v string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 >= len(v) {
				return "", errBadSelector
			}
			i++
			switch v[i] {
			case '\\', ',', '=', '!':
				b.WriteByte(v[i])
			default:
				return "", errBadSelector
			}
		case ',', '=':
			return "", errBadSelector
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// selectorRequires reports whether sel requires field key to equal value
// (a "=" or "==" term). A malformed selector requires nothing.
func selectorRequires(sel, key, value string) bool {
	terms, err := parseFieldSelector(sel)
	if err != nil {
		return false
	}
	for _, t := range terms {
		if t.key == key && t.op != "!=" && t.value == value {
			return true
		}
	}
	return false
}

// selectorEquals returns the value a "=" or "==" term requires of key, if
// the selector has exactly one such term.
func selectorEquals(sel, key string) (string, bool) {
	terms, err := parseFieldSelector(sel)
	if err != nil {
		return "", false
	}
	value, found := "", false
	for _, t := range terms {
		if t.key != key || t.op == "!=" {
			continue
		}
		if found && t.value != value {
			return "", false
		}
		value, found = t.value, true
	}
	return value, found
}
