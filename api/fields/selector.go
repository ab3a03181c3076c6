package fields

import (
	"slices"
	"strings"
)

// Operator is the comparison of a field selector term.
type Operator string

// The operators of field selector terms. Equals and DoubleEquals mean the
// same; both print as "=".
const (
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	NotEquals    Operator = "!="
)

// Requirement is one term of a selector: Field Operator Value, with Value
// unescaped.
type Requirement struct {
	Field    string
	Operator Operator
	Value    string
}

// Matches reports whether f satisfies the term; an absent field has the
// value "", as in Kubernetes.
func (r Requirement) Matches(f Fields) bool {
	if r.Operator == NotEquals {
		return f.Get(r.Field) != r.Value
	}
	return f.Get(r.Field) == r.Value
}

// String prints the term with the value escaped.
func (r Requirement) String() string {
	op := "="
	if r.Operator == NotEquals {
		op = "!="
	}
	return r.Field + op + EscapeValue(r.Value)
}

// Selector matches the fields of objects. Every Selector in this package
// is immutable and safe for concurrent use.
type Selector interface {
	// Matches reports whether f satisfies every term.
	Matches(f Fields) bool
	// Empty reports whether the selector has no terms (matches everything).
	Empty() bool
	// String returns the selector in the syntax Parse reads ("" when empty).
	String() string
	// RequiresExactMatch reports whether the selector requires field to
	// have one specific value (a = or == term), and which.
	RequiresExactMatch(field string) (value string, found bool)
	// Requirements returns a copy of the terms, sorted by field; the API
	// server checks their fields against those the kind supports.
	Requirements() []Requirement
}

// terms is the Selector that requires all of its terms, sorted by
// compareTerms; none means Everything.
type terms []Requirement

var _ Selector = terms(nil)

// Matches implements Selector.
func (t terms) Matches(f Fields) bool {
	for _, r := range t {
		if !r.Matches(f) {
			return false
		}
	}
	return true
}

// Empty implements Selector.
func (t terms) Empty() bool { return len(t) == 0 }

// String implements Selector.
func (t terms) String() string {
	parts := make([]string, len(t))
	for i, r := range t {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// RequiresExactMatch implements Selector.
func (t terms) RequiresExactMatch(field string) (string, bool) {
	for _, r := range t {
		if r.Field == field && r.Operator != NotEquals {
			return r.Value, true
		}
	}
	return "", false
}

// Requirements implements Selector.
func (t terms) Requirements() []Requirement {
	if len(t) == 0 {
		return nil
	}
	return slices.Clone(t)
}

// newTerms sorts reqs into a selector, treating == as =.
func newTerms(reqs []Requirement) terms {
	t := make(terms, len(reqs))
	for i, r := range reqs {
		if r.Operator == DoubleEquals {
			r.Operator = Equals
		}
		t[i] = r
	}
	slices.SortFunc(t, compareTerms)
	return t
}

func compareTerms(a, b Requirement) int {
	if c := strings.Compare(a.Field, b.Field); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Operator), string(b.Operator)); c != 0 {
		return c
	}
	return strings.Compare(a.Value, b.Value)
}

// Everything returns the selector that matches all objects.
func Everything() Selector { return terms(nil) }

// OneTermEqualSelector returns the selector "k=v".
func OneTermEqualSelector(k, v string) Selector {
	return terms{{Field: k, Operator: Equals, Value: v}}
}

// OneTermNotEqualSelector returns the selector "k!=v".
func OneTermNotEqualSelector(k, v string) Selector {
	return terms{{Field: k, Operator: NotEquals, Value: v}}
}

// SelectorFromSet returns the selector that requires every field of s to
// have its value; an empty set gives Everything.
func SelectorFromSet(s Set) Selector {
	reqs := make([]Requirement, 0, len(s))
	for _, k := range sortedKeys(s) {
		reqs = append(reqs, Requirement{Field: k, Operator: Equals, Value: s[k]})
	}
	return newTerms(reqs)
}

// NewSelector returns the selector that requires all of reqs (Everything
// when there are none); DoubleEquals terms become Equals.
func NewSelector(reqs ...Requirement) Selector { return newTerms(reqs) }
