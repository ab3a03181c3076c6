package patch

import (
	"fmt"
	"slices"
	"strings"
)

// Strategic merge patch directives (see the Kubernetes strategic merge patch
// documentation).
const (
	directivePatch       = "$patch"                    // replace, delete or merge the enclosing map or list
	directiveRetainKeys  = "$retainKeys"               // fields to keep; all others are cleared
	prefixSetOrder       = "$setElementOrder/"         // + field: the order of the merged list
	prefixDeleteFromList = "$deleteFromPrimitiveList/" // + field: primitives to remove from the list
)

// merger applies one strategic merge patch. It carries the list table of the
// patched object's kind and is used by a single call to Apply.
type merger struct {
	schema schema
	// work is what list merging may still spend (MaxListWork at the
	// start), in elements visited or compared.
	work int
}

// applyStrategicMerge applies the strategic merge patch in data to doc, an
// object of the given kind.
func applyStrategicMerge(doc any, data []byte, kind string) (any, error) {
	p, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w: strategic merge patch: %v", ErrInvalidPatch, err)
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return nil, invalidf("strategic merge patch must be a JSON object, got %s", typeName(p))
	}
	m := merger{schema: newSchema(kind), work: MaxListWork}
	orig, _ := doc.(map[string]any) // a non-object document is replaced, as in RFC 7386
	return m.mergeMap(orig, pm, "")
}

// mergeMap merges patch into orig (nil meaning absent) at path and returns
// the result, which may be orig itself, changed. Directives in patch are
// obeyed and never copied into the result.
func (m *merger) mergeMap(orig, patch map[string]any, path string) (map[string]any, error) {
	if d, ok := patch[directivePatch]; ok {
		switch d {
		case "replace":
			delete(patch, directivePatch)
			return m.mergeMap(nil, patch, path)
		case "delete":
			return map[string]any{}, nil
		case "merge":
			delete(patch, directivePatch)
		default:
			return nil, invalidf("%s: unknown %s directive %s; want replace, delete or merge", where(path), directivePatch, describe(d))
		}
	}
	if orig == nil {
		orig = make(map[string]any, len(patch))
	}
	if err := m.retainKeys(orig, patch, path); err != nil {
		return nil, err
	}
	orders, err := m.listDirectives(orig, patch, path)
	if err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(patch) {
		v := patch[k]
		if isDirective(k) {
			continue
		}
		if v == nil {
			delete(orig, k)
			continue
		}
		order, hasOrder := orders[k]
		delete(orders, k)
		if orig[k], err = m.mergeValue(orig[k], v, join(path, k), order, hasOrder); err != nil {
			return nil, err
		}
	}
	for _, k := range sortedKeys(orders) { // $setElementOrder without a patch list: reorder only
		if list, ok := orig[k].([]any); ok {
			if orig[k], err = m.mergeList(list, nil, join(path, k), orders[k], true); err != nil {
				return nil, err
			}
		}
	}
	return orig, nil
}

// mergeValue merges one patch member into the original member (nil if
// absent). order is the member's $setElementOrder list, if hasOrder.
func (m *merger) mergeValue(orig, patch any, path string, order []any, hasOrder bool) (any, error) {
	switch p := patch.(type) {
	case map[string]any:
		if hasOrder {
			return nil, invalidf("%s: %s given, but the patch value is an object, not a list", where(path), prefixSetOrder+lastField(path))
		}
		om, _ := orig.(map[string]any)
		return m.mergeMap(om, p, path)
	case []any:
		ol, _ := orig.([]any)
		return m.mergeList(ol, p, path, order, hasOrder)
	}
	if hasOrder {
		return nil, invalidf("%s: %s given, but the patch value is a %s, not a list", where(path), prefixSetOrder+lastField(path), typeName(patch))
	}
	return patch, nil
}

// retainKeys obeys a $retainKeys directive in patch: every field of orig not
// named is cleared. A patch field the list does not name is an error.
func (m *merger) retainKeys(orig, patch map[string]any, path string) error {
	raw, ok := patch[directiveRetainKeys]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return invalidf("%s: %s must be a list of field names, got %s", where(path), directiveRetainKeys, typeName(raw))
	}
	keep := make(map[string]bool, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return invalidf("%s: %s must be a list of field names, found %s", where(path), directiveRetainKeys, typeName(e))
		}
		keep[s] = true
	}
	for k, v := range patch {
		if !isDirective(k) && v != nil && !keep[k] {
			return invalidf("%s: field %q is in the patch but not in %s", where(path), k, directiveRetainKeys)
		}
	}
	if err := m.charge(path, len(orig)); err != nil {
		return err
	}
	for k := range orig {
		if !keep[k] {
			delete(orig, k)
		}
	}
	return nil
}

// listDirectives obeys the $deleteFromPrimitiveList/<field> directives in
// patch and returns the $setElementOrder/<field> lists by field.
func (m *merger) listDirectives(orig, patch map[string]any, path string) (map[string][]any, error) {
	var orders map[string][]any
	for _, k := range sortedKeys(patch) {
		v := patch[k]
		field, isOrder := strings.CutPrefix(k, prefixSetOrder)
		delField, isDelete := strings.CutPrefix(k, prefixDeleteFromList)
		if !isOrder && !isDelete {
			continue
		}
		list, ok := v.([]any)
		if !ok || field == "" || delField == "" {
			return nil, invalidf("%s: %s must name a field and hold a list, got %s", where(path), k, typeName(v))
		}
		if isOrder {
			if orders == nil {
				orders = map[string][]any{}
			}
			orders[field] = list
			continue
		}
		if err := m.deleteFromList(orig, delField, list, join(path, k)); err != nil {
			return nil, err
		}
	}
	return orders, nil
}

// deleteFromList removes every element of orig[field] equal to one in del,
// which must hold primitives.
func (m *merger) deleteFromList(orig map[string]any, field string, del []any, path string) error {
	drop := make(map[string]bool, len(del))
	for i, e := range del {
		if isContainer(e) {
			return invalidf("%s[%d]: only primitives can be deleted from a list, got %s", path, i, typeName(e))
		}
		drop[identity(e)] = true
	}
	list, ok := orig[field].([]any)
	if !ok {
		return nil
	}
	if err := m.charge(path, len(list)); err != nil {
		return err
	}
	orig[field] = slices.DeleteFunc(list, func(e any) bool { return !isContainer(e) && drop[identity(e)] })
	return nil
}

// isDirective reports whether a patch key is a directive rather than a field.
func isDirective(k string) bool {
	return k == directivePatch || k == directiveRetainKeys ||
		strings.HasPrefix(k, prefixSetOrder) || strings.HasPrefix(k, prefixDeleteFromList)
}

// isContainer reports whether v is a JSON object or array.
func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// sortedKeys returns m's keys in order, so errors are deterministic.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// join appends field k to path.
func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// lastField returns the last field name of path.
func lastField(path string) string {
	return path[strings.LastIndexByte(path, '.')+1:]
}

// where names path in errors.
func where(path string) string {
	if path == "" {
		return "<root>"
	}
	return path
}

// describe renders a directive value for errors.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return typeName(v)
}
