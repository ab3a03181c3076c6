package schema

import (
	"fmt"

	"github.com/orkit/orkit/api/field"
)

// validateListTypes checks that lists of x-kubernetes-list-type set hold
// unique items and lists of type map unique keys, as Kubernetes'
// ValidateListSetsAndMaps does.
func validateListTypes(n *node, x any, p *field.Path) field.ErrorList {
	if n == nil || !n.hasExtra {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if c, ok := n.properties[k]; ok {
				errs = append(errs, validateListTypes(c, x[k], p.Child(k))...)
			} else if n.additional != nil {
				errs = append(errs, validateListTypes(n.additional, x[k], p.Key(k))...)
			}
		}
	case []any:
		switch n.listType {
		case "set":
			for _, i := range duplicates(x) {
				errs = append(errs, field.Duplicate(p.Index(i), x[i]))
			}
		case "map":
			errs = append(errs, validateListMap(n, x, p)...)
		}
		for i, e := range x {
			errs = append(errs, validateListTypes(n.items, e, p.Index(i))...)
		}
	}
	return errs
}

// duplicates returns the index of the second occurrence of every value
// that occurs more than once.
func duplicates(items []any) []int {
	if len(items) <= 1 {
		return nil
	}
	seen := make(map[string]int, len(items))
	var out []int
	for i, e := range items {
		k := jsonKey(e)
		seen[k]++
		if seen[k] == 2 {
			out = append(out, i)
		}
	}
	return out
}

func validateListMap(n *node, items []any, p *field.Path) field.ErrorList {
	for i, e := range items {
		if _, ok := e.(map[string]any); e != nil && !ok {
			return field.ErrorList{field.Invalid(p.Index(i), e, "must be an object for an array of list-type map")}
		}
	}
	keys := make([]any, len(items))
	for i, e := range items {
		key := map[string]any{}
		if m, ok := e.(map[string]any); ok {
			for _, k := range n.listMapKeys {
				if v, ok := m[k]; ok {
					key[k] = v
				}
			}
		}
		keys[i] = key
	}
	var errs field.ErrorList
	for _, i := range duplicates(keys) {
		errs = append(errs, field.Duplicate(p.Index(i), goSyntax{keys[i]}))
	}
	return errs
}

// goSyntax prints a value as Go syntax (%#v), as Kubernetes prints a
// composite bad value.
type goSyntax struct{ v any }

// String implements fmt.Stringer.
func (g goSyntax) String() string { return fmt.Sprintf("%#v", g.v) }
