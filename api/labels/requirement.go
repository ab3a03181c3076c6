package labels

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/validation"
)

// Operator relates a label key to a requirement's values.
type Operator string

// The operators, with the spellings of Kubernetes' selection package.
const (
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	NotEquals    Operator = "!="
	In           Operator = "in"
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	DoesNotExist Operator = "!"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)

// Requirement is one condition of a selector: a key, an operator and
// values. The zero Requirement is invalid; build one with NewRequirement
// (or Parse). A Requirement is immutable.
type Requirement struct {
	key    string
	op     Operator
	values []string // sorted, without duplicates
}

// NewRequirement returns the requirement "key op values" after checking it
// as Kubernetes does: the key is a qualified name; In and NotIn need at
// least one value; Equals, DoubleEquals and NotEquals exactly one; Exists
// and DoesNotExist none; GreaterThan and LessThan one integer; every value
// is a valid label value (the empty string is one). Errors wrap
// ErrInvalidSelector.
func NewRequirement(key string, op Operator, values []string) (Requirement, error) {
	var problems []string
	if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
		problems = append(problems, fmt.Sprintf("key %q: %s", key, strings.Join(msgs, "; ")))
	}
	if msg := checkArity(op, values); msg != "" {
		problems = append(problems, msg)
	}
	for _, v := range values {
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			problems = append(problems, fmt.Sprintf("value %q: %s", v, strings.Join(msgs, "; ")))
		}
	}
	if len(problems) > 0 {
		return Requirement{}, fmt.Errorf("%w: %s", ErrInvalidSelector, strings.Join(problems, "; "))
	}
	vals := slices.Clone(values)
	slices.Sort(vals)
	return Requirement{key: key, op: op, values: slices.Compact(vals)}, nil
}

// checkArity returns what is wrong with the number (or form) of values
// for op, or "".
func checkArity(op Operator, values []string) string {
	switch op {
	case In, NotIn:
		if len(values) == 0 {
			return "for 'in', 'notin' operators, values set can't be empty"
		}
	case Equals, DoubleEquals, NotEquals:
		if len(values) != 1 {
			return "exact-match compatibility requires one single value"
		}
	case Exists, DoesNotExist:
		if len(values) != 0 {
			return "values set must be empty for exists and does not exist"
		}
	case GreaterThan, LessThan:
		if len(values) != 1 {
			return "for 'Gt', 'Lt' operators, exactly one value is required"
		}
		if _, err := strconv.ParseInt(values[0], 10, 64); err != nil {
			return "for 'Gt', 'Lt' operators, the value must be an integer"
		}
	default:
		return fmt.Sprintf("unsupported operator %q", string(op))
	}
	return ""
}

// Key returns the label key the requirement is about.
func (r Requirement) Key() string { return r.key }

// Operator returns the requirement's operator.
func (r Requirement) Operator() Operator { return r.op }

// Values returns a copy of the requirement's values, sorted.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

// Equal reports whether r and x are the same requirement.
func (r Requirement) Equal(x Requirement) bool {
	return r.key == x.key && r.op == x.op && slices.Equal(r.values, x.values)
}

// Matches reports whether labels l satisfy r. NotIn, NotEquals and
// DoesNotExist hold for an absent key; every other operator needs the key.
// GreaterThan and LessThan need a label value that is an integer.
func (r Requirement) Matches(l Labels) bool {
	switch r.op {
	case In, Equals, DoubleEquals:
		return l.Has(r.key) && r.hasValue(l.Get(r.key))
	case NotIn, NotEquals:
		return !l.Has(r.key) || !r.hasValue(l.Get(r.key))
	case Exists:
		return l.Has(r.key)
	case DoesNotExist:
		return !l.Has(r.key)
	case GreaterThan, LessThan:
		if !l.Has(r.key) || len(r.values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(l.Get(r.key), 10, 64)
		want, err2 := strconv.ParseInt(r.values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return r.op == GreaterThan && have > want || r.op == LessThan && have < want
	}
	return false
}

func (r Requirement) hasValue(v string) bool {
	_, found := slices.BinarySearch(r.values, v)
	return found
}

// String returns r in selector syntax: "k=v", "k==v", "k!=v",
// "k in (a,b)", "k notin (a,b)", "k", "!k", "k>1", "k<1".
func (r Requirement) String() string {
	switch r.op {
	case Exists:
		return r.key
	case DoesNotExist:
		return "!" + r.key
	case In, NotIn:
		return r.key + " " + string(r.op) + " (" + strings.Join(r.values, ",") + ")"
	}
	op := string(r.op)
	switch {
	case r.op == GreaterThan:
		op = ">"
	case r.op == LessThan:
		op = "<"
	case r.op == DoubleEquals && r.value() == "":
		op = "=" // "k==" does not parse; "k=" means the same
	}
	return r.key + op + r.value()
}

func (r Requirement) value() string {
	if len(r.values) == 0 {
		return ""
	}
	return r.values[0]
}

// compare orders requirements by key, then operator, then values.
func compare(a, b Requirement) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.op), string(b.op)); c != 0 {
		return c
	}
	return slices.Compare(a.values, b.values)
}
