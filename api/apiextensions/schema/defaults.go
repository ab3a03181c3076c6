package schema

// pruneNulls removes nulls that the schema does not allow and that have
// no default to replace them (Kubernetes' PruneNonNullableNullsWithoutDefaults).
func pruneNulls(x any, n *node) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			c := n.field(k)
			if v == nil && c != nil && !c.nullable && !c.hasDefault {
				delete(x, k)
				continue
			}
			pruneNulls(v, c)
		}
	case []any:
		var items *node
		if n != nil {
			items = n.items
		}
		for _, e := range x {
			pruneNulls(e, items)
		}
	}
}

// applyDefaults fills in the defaults of n's properties that are missing
// (or null where null is not allowed) in x, and recurses into every value
// x has, as Kubernetes' structural defaulting does: a default applies only
// where its parent object exists.
func applyDefaults(x any, n *node) {
	if n == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range n.propNames {
			c := n.properties[k]
			if !c.hasDefault {
				continue
			}
			if v, ok := x[k]; !ok || (v == nil && !c.nullable) {
				x[k] = DeepCopyJSON(c.def)
			}
		}
		for k, v := range x {
			if c, ok := n.properties[k]; ok {
				applyDefaults(v, c)
			} else if a := n.additional; a != nil {
				if v == nil && !a.nullable && a.hasDefault {
					x[k] = DeepCopyJSON(a.def)
				}
				applyDefaults(x[k], a)
			}
		}
	case []any:
		a := n.items
		if a == nil {
			return
		}
		for i := range x {
			if x[i] == nil && !a.nullable && a.hasDefault {
				x[i] = DeepCopyJSON(a.def)
			}
			applyDefaults(x[i], a)
		}
	}
}
