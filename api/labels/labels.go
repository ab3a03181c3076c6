package labels

import (
	"slices"
	"strings"
)

// Labels is read access to the labels of one object.
type Labels interface {
	// Has reports whether the label key is present.
	Has(key string) bool
	// Get returns the value of the label key, or "" when absent.
	Get(key string) string
}

// Set is a plain map of labels; it implements Labels. A nil Set is empty.
type Set map[string]string

var _ Labels = Set(nil)

// Has reports whether key is present in s.
func (s Set) Has(key string) bool {
	_, ok := s[key]
	return ok
}

// Get returns the value of key in s, or "".
func (s Set) Get(key string) string { return s[key] }

// String returns the labels as "k1=v1,k2=v2", sorted by key.
func (s Set) String() string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + "=" + s[k])
	}
	return b.String()
}

// AsSelector returns a selector that matches objects carrying every label
// of s; see SelectorFromSet.
func (s Set) AsSelector() Selector { return SelectorFromSet(s) }
