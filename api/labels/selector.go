package labels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/meta"
)

// Selector matches label sets. Every Selector in this package is
// immutable and safe for concurrent use.
type Selector interface {
	// Matches reports whether labels l satisfy every requirement.
	Matches(l Labels) bool
	// Empty reports whether the selector has no requirements and so
	// matches everything (Nothing is not empty, and matches nothing).
	Empty() bool
	// String returns the selector in the syntax Parse reads; "" for
	// Everything and for Nothing.
	String() string
	// Requirements returns a copy of the requirements, sorted by key; nil
	// for Everything and Nothing.
	Requirements() []Requirement
}

// requirements is the Selector made of requirements that must all hold;
// no requirements means Everything. Sorted with compare.
type requirements []Requirement

var _ Selector = requirements(nil)

// Matches implements Selector.
func (s requirements) Matches(l Labels) bool {
	for _, r := range s {
		if !r.Matches(l) {
			return false
		}
	}
	return true
}

// Empty implements Selector.
func (s requirements) Empty() bool { return len(s) == 0 }

// String implements Selector.
func (s requirements) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Requirements implements Selector.
func (s requirements) Requirements() []Requirement {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// nothing is the Selector that matches no labels.
type nothing struct{}

var _ Selector = nothing{}

// Matches implements Selector.
func (nothing) Matches(Labels) bool { return false }

// Empty implements Selector.
func (nothing) Empty() bool { return false }

// String implements Selector.
func (nothing) String() string { return "" }

// Requirements implements Selector.
func (nothing) Requirements() []Requirement { return nil }

// Everything returns the selector that matches every label set.
func Everything() Selector { return requirements(nil) }

// Nothing returns the selector that matches no label set (what a nil
// meta.LabelSelector means).
func Nothing() Selector { return nothing{} }

// NewSelector returns the selector that requires all of reqs (Everything
// when there are none). The requirements are sorted by key.
func NewSelector(reqs ...Requirement) Selector {
	s := requirements(slices.Clone(reqs))
	slices.SortFunc(s, compare)
	return s
}

// SelectorFromSet returns the selector that requires every label of set
// with its value ("k1=v1,k2=v2"); an empty or nil set gives Everything. The
// set is not validated: a selector with an invalid key or value simply
// matches nothing that passed validation.
func SelectorFromSet(set Set) Selector {
	s := make(requirements, 0, len(set))
	for k, v := range set {
		s = append(s, Requirement{key: k, op: Equals, values: []string{v}})
	}
	slices.SortFunc(s, compare)
	return s
}

// SelectorFromLabelSelector converts the API's label selector: nil gives
// Nothing, an empty one Everything; otherwise each matchLabels entry is an
// Equals requirement and each matchExpressions entry the requirement with
// the same operator. Invalid keys, values or operators give an error that
// wraps ErrInvalidSelector.
func SelectorFromLabelSelector(ls *meta.LabelSelector) (Selector, error) {
	if ls == nil {
		return Nothing(), nil
	}
	reqs := make([]Requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	for k, v := range ls.MatchLabels {
		r, err := NewRequirement(k, Equals, []string{v})
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	for _, e := range ls.MatchExpressions {
		op, ok := operatorOf(e.Operator)
		if !ok {
			return nil, fmt.Errorf("%w: %q is not a valid label selector operator", ErrInvalidSelector, string(e.Operator))
		}
		r, err := NewRequirement(e.Key, op, e.Values)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return NewSelector(reqs...), nil
}

// operatorOf maps the API's operators to this package's.
func operatorOf(op meta.LabelSelectorOperator) (Operator, bool) {
	switch op {
	case meta.LabelSelectorOpIn:
		return In, true
	case meta.LabelSelectorOpNotIn:
		return NotIn, true
	case meta.LabelSelectorOpExists:
		return Exists, true
	case meta.LabelSelectorOpDoesNotExist:
		return DoesNotExist, true
	}
	return "", false
}

// RequiresExactMatch reports whether s requires label key to have one
// specific value (through =, == or an in with one value), and which.
// Indexers use it to answer a selector from an index.
func RequiresExactMatch(s Selector, key string) (value string, found bool) {
	for _, r := range s.Requirements() {
		if r.key != key {
			continue
		}
		switch r.op {
		case Equals, DoubleEquals, In:
			if len(r.values) == 1 {
				return r.values[0], true
			}
		}
	}
	return "", false
}
