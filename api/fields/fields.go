package fields

import (
	"slices"
	"strings"
)

// Fields is read access to the selectable fields of one object.
type Fields interface {
	// Has reports whether the field is present.
	Has(field string) bool
	// Get returns the value of the field, or "" when absent.
	Get(field string) string
}

// Set is a plain map of field values; it implements Fields.
type Set map[string]string

var _ Fields = Set(nil)

// Has reports whether field is present in s.
func (s Set) Has(field string) bool {
	_, ok := s[field]
	return ok
}

// Get returns the value of field in s, or "".
func (s Set) Get(field string) string { return s[field] }

// String returns the set as a selector string, "f1=v1,f2=v2" with values
// escaped, sorted by field.
func (s Set) String() string { return SelectorFromSet(s).String() }

// AsSelector returns the selector that requires every field of s to have
// its value.
func (s Set) AsSelector() Selector { return SelectorFromSet(s) }

// EscapeValue escapes a literal value for use in a field selector:
// '\' becomes "\\", ',' becomes "\," and '=' becomes "\=".
func EscapeValue(v string) string {
	if !strings.ContainsAny(v, `\,=`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\\' || c == ',' || c == '=' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func sortedKeys(s Set) []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
