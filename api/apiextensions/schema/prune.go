package schema

// metaFields are kept (and not pruned) at the root and in embedded
// resources.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// pruner removes the fields a schema does not specify, as Kubernetes'
// pruning does, and records their paths.
type pruner struct {
	out []string
}

// root prunes a whole object: its apiVersion, kind and metadata are kept.
func (pr *pruner) root(x any, n *node) {
	m, ok := x.(map[string]any)
	if !ok {
		pr.value(x, n, newPath())
		return
	}
	if n != nil && n.preserveUnknown {
		pr.skipMap(m, n, true, newPath())
		return
	}
	pr.pruneMap(m, n, true, newPath())
}

func (pr *pruner) value(x any, n *node, p walkPath) {
	if n != nil && n.preserveUnknown {
		pr.skip(x, n, p)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		pr.pruneMap(x, n, n != nil && n.embedded, p)
	case []any:
		var items *node
		if n != nil {
			items = n.items
		}
		for i, e := range x {
			pr.value(e, items, p.index(i))
		}
	}
}

func (pr *pruner) pruneMap(m map[string]any, n *node, keepMeta bool, p walkPath) {
	for k, v := range m {
		switch {
		case keepMeta && metaFields[k]:
		case n == nil:
			pr.out = append(pr.out, p.prop(k).openAPIName())
			delete(m, k)
		case n.properties[k] != nil:
			pr.value(v, n.properties[k], p.prop(k))
		case n.addlSet:
			pr.value(v, n.additional, p.prop(k))
		default:
			pr.out = append(pr.out, p.prop(k).openAPIName())
			delete(m, k)
		}
	}
}

// skip walks a value under x-kubernetes-preserve-unknown-fields: unknown
// fields stay, specified ones are pruned by their own schemas.
func (pr *pruner) skip(x any, n *node, p walkPath) {
	if n == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		pr.skipMap(x, n, n.embedded, p)
	case []any:
		for i, e := range x {
			pr.skip(e, n.items, p.index(i))
		}
	}
}

func (pr *pruner) skipMap(m map[string]any, n *node, keepMeta bool, p walkPath) {
	for k, v := range m {
		switch {
		case keepMeta && metaFields[k]:
		case n.properties[k] != nil:
			pr.value(v, n.properties[k], p.prop(k))
		case n.addlSet:
			pr.value(v, n.additional, p.prop(k))
		}
	}
}
