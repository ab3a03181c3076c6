package jsonpath

import (
	"fmt"
	"sort"

	"strings"
)

// Path is a parsed JSONPath expression.
type Path struct {
	src   string
	steps []step
}

type stepKind int

const (
	stepField     stepKind = iota // names: one or more fields (a union)
	stepWildcard                  // every value of a map or list
	stepRecursive                 // name at any depth
	stepIndex                     // indices: one or more (a union)
	stepSlice                     // start:end:step
	stepFilter                    // items for which the filter holds
	stepSelf                      // the value itself
)

type step struct {
	kind    stepKind
	names   []string
	indices []int
	slice   [3]*int
	filter  *filter
}

type filter struct {
	path    *Path // relative to @
	op      string
	literal any // nil with op "" tests existence
}

// String returns the expression Path was parsed from.
func (p *Path) String() string { return p.src }

// Parse parses a JSONPath expression, with or without the surrounding
// braces kubectl templates use ("{.spec.replicas}" or ".spec.replicas").
// Errors wrap ErrSyntax.
func Parse(expr string) (*Path, error) {
	s := strings.TrimSpace(expr)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	s = strings.TrimPrefix(s, "$")
	p := &parser{src: s}
	steps, err := p.steps()
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrSyntax, expr, err)
	}
	return &Path{src: expr, steps: steps}, nil
}

// Find returns every value the path reaches in data, in document order
// (map keys sorted); nil when it reaches none.
func (p *Path) Find(data any) []any {
	cur := []any{data}
	for _, s := range p.steps {
		var next []any
		for _, v := range cur {
			next = s.apply(v, next)
		}
		if len(next) == 0 {
			return nil
		}
		cur = next
	}
	return cur
}

func (s step) apply(v any, out []any) []any {
	switch s.kind {
	case stepSelf:
		out = append(out, v)
	case stepField:
		if m, ok := v.(map[string]any); ok {
			for _, n := range s.names {
				if x, found := m[n]; found {
					out = append(out, x)
				}
			}
		}
	case stepWildcard:
		out = appendChildren(v, out)
	case stepRecursive:
		out = recurse(v, s.names[0], out)
	case stepIndex:
		if l, ok := v.([]any); ok {
			for _, i := range s.indices {
				if i < 0 {
					i += len(l)
				}
				if i >= 0 && i < len(l) {
					out = append(out, l[i])
				}
			}
		}
	case stepSlice:
		out = s.applySlice(v, out)
	case stepFilter:
		if l, ok := v.([]any); ok {
			for _, e := range l {
				if s.filter.holds(e) {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

func appendChildren(v any, out []any) []any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, x[k])
		}
	case []any:
		out = append(out, x...)
	}
	return out
}

func recurse(v any, name string, out []any) []any {
	if m, ok := v.(map[string]any); ok {
		if x, found := m[name]; found {
			out = append(out, x)
		}
	}
	for _, c := range appendChildren(v, nil) {
		out = recurse(c, name, out)
	}
	return out
}

func (s step) applySlice(v any, out []any) []any {
	l, ok := v.([]any)
	if !ok {
		return out
	}
	n := len(l)
	start, end, by := 0, n, 1
	if s.slice[2] != nil && *s.slice[2] > 0 {
		by = *s.slice[2]
	}
	if s.slice[0] != nil {
		start = clampIndex(*s.slice[0], n)
	}
	if s.slice[1] != nil {
		end = clampIndex(*s.slice[1], n)
	}
	for i := start; i < end; i += by {
		out = append(out, l[i])
	}
	return out
}

func clampIndex(i, n int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, 0), n)
}

// holds evaluates a filter on one item.
func (f *filter) holds(item any) bool {
	got := f.path.Find(item)
	if f.op == "" {
		return len(got) > 0
	}
	for _, g := range got {
		if compare(g, f.op, f.literal) {
			return true
		}
	}
	return false
}

func compare(a any, op string, b any) bool {
	if fa, ok := number(a); ok {
		if fb, ok := number(b); ok {
			switch op {
			case "==":
				return fa == fb
			case "!=":
				return fa != fb
			case "<":
				return fa < fb
			case "<=":
				return fa <= fb
			case ">":
				return fa > fb
			case ">=":
				return fa >= fb
			}
		}
	}
	switch op {
	case "==":
		return fmt.Sprint(a) == fmt.Sprint(b) && kindOf(a) == kindOf(b)
	case "!=":
		return fmt.Sprint(a) != fmt.Sprint(b) || kindOf(a) != kindOf(b)
	}
	sa, aok := a.(string)
	sb, bok := b.(string)
	if !aok || !bok {
		return false
	}
	switch op {
	case "<":
		return sa < sb
	case "<=":
		return sa <= sb
	case ">":
		return sa > sb
	case ">=":
		return sa >= sb
	}
	return false
}

func kindOf(v any) string { return fmt.Sprintf("%T", v) }

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}
