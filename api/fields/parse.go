package fields

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Parse reads a field selector: terms separated by ',', each
// "field=value", "field==value" or "field!=value". The field is everything
// before the first operator; in the value, '\' escapes '\', ',' and '='
// (which must be escaped), and any other escape is an error. Empty terms
// are skipped, so "" gives Everything, as in Kubernetes. A term without an
// operator or with an empty field name is an error. Errors wrap
// ErrInvalidSelector.
func Parse(s string) (Selector, error) {
	var reqs []Requirement
	for _, term := range splitTerms(s) {
		if term == "" {
			continue
		}
		r, err := parseTerm(term)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrInvalidSelector, truncate(s), err)
		}
		reqs = append(reqs, r)
	}
	return newTerms(reqs), nil
}

func truncate(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}

// splitTerms splits s at the commas that are not escaped; escapes are kept
// in the terms.
func splitTerms(s string) []string {
	var out []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// parseTerm splits a term at its first operator and unescapes the value.
func parseTerm(term string) (Requirement, error) {
	field, op, rest, ok := splitTerm(term)
	if !ok {
		return Requirement{}, fmt.Errorf("can't understand '%s': expected field=value, field==value or field!=value", term)
	}
	if field == "" {
		return Requirement{}, fmt.Errorf("can't understand '%s': the field name is empty", term)
	}
	value, err := unescapeValue(rest)
	if err != nil {
		return Requirement{}, fmt.Errorf("in '%s': %v", term, err)
	}
	return Requirement{Field: field, Operator: op, Value: value}, nil
}

// splitTerm finds the first operator of term ("!=" and "==" before "=").
func splitTerm(term string) (field string, op Operator, rest string, ok bool) {
	for i := 0; i < len(term); i++ {
		for _, op := range []Operator{NotEquals, DoubleEquals, Equals} {
			if strings.HasPrefix(term[i:], string(op)) {
				return term[:i], op, term[i+len(op):], true
			}
		}
	}
	return "", "", "", false
}

// unescapeValue undoes EscapeValue, rejecting unknown escapes, a trailing
// lone backslash and unescaped ',' or '='.
func unescapeValue(v string) (string, error) {
	if !strings.ContainsAny(v, `\,=`) {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 == len(v) {
				return "", fmt.Errorf("invalid escape sequence: a lone '\\' ends the value")
			}
			i++
			if n := v[i]; n != '\\' && n != ',' && n != '=' {
				r, _ := utf8.DecodeRuneInString(v[i:])
				return "", fmt.Errorf("invalid escape sequence: %q", "\\"+string(r))
			}
			b.WriteByte(v[i])
		case ',', '=':
			return "", fmt.Errorf("unescaped character in value: '%c'", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
