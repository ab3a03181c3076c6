package fieldmanager

// pruneEqual returns a and b without the fields whose values are equal on
// both sides, descending into objects that both sides have. Comparing the
// results finds the same added, removed and modified fields as comparing
// a and b whole, because an equal subtree adds nothing to any of the
// three; typing and comparing them costs in proportion to what changed
// rather than to the object's size (a kubelet's status update of a pod
// leaves its spec and metadata alone, a Lease renewal changes one time).
// Lists are kept whole when they differ: their items are matched by key
// or position, which only the schema knows. Neither input is modified;
// the results share their unchanged leaves with the inputs.
func pruneEqual(a, b map[string]any) (map[string]any, map[string]any) {
	pa := make(map[string]any, len(a))
	pb := make(map[string]any, len(b))
	for k, va := range a {
		vb, ok := b[k]
		if !ok {
			pa[k] = va
			continue
		}
		if equalJSON(va, vb) {
			continue
		}
		ma, aObj := va.(map[string]any)
		mb, bObj := vb.(map[string]any)
		if aObj && bObj {
			pa[k], pb[k] = pruneEqual(ma, mb)
			continue
		}
		pa[k], pb[k] = va, vb
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok {
			pb[k] = vb
		}
	}
	return pa, pb
}

// equalJSON reports whether two decoded JSON values (maps, slices,
// strings, int64 and float64 numbers, booleans, nil) are equal; values of
// different Go types are not.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, vx := range x {
			vy, ok := y[k]
			if !ok || !equalJSON(vx, vy) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	// Other types (int, json.Number from other decoders) are compared
	// only by the schema-aware comparison: never pruned.
	return false
}
