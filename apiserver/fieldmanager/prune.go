package fieldmanager

import apischema "github.com/orkit/orkit/api/apiextensions/schema"

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
		if apischema.EqualJSON(va, vb) {
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
