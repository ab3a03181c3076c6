package patch

import "slices"

// mergeList merges the patch list into orig (nil meaning absent) at path by
// the list's rule, then orders a merged list by order if hasOrder (a
// $setElementOrder directive), else by the patch list's order. patch is nil
// when only a $setElementOrder directive names the list.
func (m *merger) mergeList(orig, patch []any, path string, order []any, hasOrder bool) ([]any, error) {
	rule := m.schema.rule(path)
	switch rule.strategy {
	case mergeByKey:
		return m.mergeKeyed(orig, patch, path, rule.keys, order, hasOrder)
	case mergeSet:
		return mergeSetList(orig, patch, path, order, hasOrder)
	}
	if patch == nil {
		return orig, nil
	}
	return m.replaceList(patch, path)
}

// replaceList returns the patch list of an atomic list, with directives
// inside its objects obeyed. A {"$patch": "replace"} element is redundant
// and dropped; other $patch elements make no sense without a merge key.
func (m *merger) replaceList(patch []any, path string) ([]any, error) {
	out := make([]any, 0, len(patch))
	for i, e := range patch {
		em, ok := e.(map[string]any)
		if !ok {
			out = append(out, e)
			continue
		}
		if d, has := em[directivePatch]; has {
			if d == "replace" && len(em) == 1 {
				continue
			}
			return nil, invalidf("%s[%d]: %s %s in a list that is not merged by key", path, i, directivePatch, describe(d))
		}
		c, err := m.mergeMap(nil, em, path+"[]")
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// mergeSetList merges a list of primitives as a set: the union of the
// original and the patch, ordered as reorder describes.
func mergeSetList(orig, patch []any, path string, order []any, hasOrder bool) ([]any, error) {
	out := slices.Clone(orig)
	seen := make(map[string]bool, len(orig)+len(patch))
	for _, e := range orig {
		seen[identity(e)] = true
	}
	for i, e := range patch {
		if isContainer(e) {
			return nil, invalidf("%s[%d]: %s is a list of primitives, got %s", path, i, path, typeName(e))
		}
		if id := identity(e); !seen[id] {
			seen[id] = true
			out = append(out, e)
		}
	}
	ids := func(e any) (string, bool) { return identity(e), !isContainer(e) }
	if !hasOrder {
		return reorder(out, orig, nil, patch, ids, path)
	}
	return reorder(out, orig, patch, order, ids, path)
}

// keyedPatch is a keyed list's patch sorted into its parts.
type keyedPatch struct {
	items   []map[string]any // elements to merge or add, in patch order
	deletes []map[string]any // {"$patch": "delete", key: ...} elements
	replace bool             // a {"$patch": "replace"} element was present
}

// splitKeyed checks every element of a keyed list's patch: an object that
// carries the merge key, or a $patch directive element.
func splitKeyed(patch []any, path string, key string) (keyedPatch, error) {
	var kp keyedPatch
	for i, e := range patch {
		em, ok := e.(map[string]any)
		if !ok {
			return kp, invalidf("%s[%d]: %s is merged by key %q, so its elements must be objects, got %s", path, i, path, key, typeName(e))
		}
		d, has := em[directivePatch]
		switch {
		case !has:
		case d == "replace":
			kp.replace = true
			continue
		case d == "merge":
			delete(em, directivePatch)
		case d != "delete":
			return kp, invalidf("%s[%d]: unknown %s directive %s; want replace, delete or merge", path, i, directivePatch, describe(d))
		}
		if v, ok := em[key]; !ok || v == nil {
			return kp, invalidf("%s[%d]: element has no merge key %q", path, i, key)
		}
		if has && d == "delete" {
			kp.deletes = append(kp.deletes, em)
		} else {
			kp.items = append(kp.items, em)
		}
	}
	return kp, nil
}

// mergeKeyed merges a list of objects by key: patch elements matching an
// original element (by keys) merge into it, others are added, $patch delete
// elements remove their matches, and a $patch replace element makes the
// patch's elements the whole list. The result is ordered as reorder
// describes.
func (m *merger) mergeKeyed(orig, patch []any, path string, keys []string, order []any, hasOrder bool) ([]any, error) {
	kp, err := splitKeyed(patch, path, keys[0])
	if err != nil {
		return nil, err
	}
	elem := path + "[]"
	out := make([]any, 0, len(orig)+len(kp.items))
	if !kp.replace {
		out = deleteMatching(out, orig, kp.deletes, keys)
	}
	idx := newKeyIndex(out, keys[0])
	for _, pe := range kp.items {
		i := idx.find(out, pe, keys)
		var om map[string]any
		if i >= 0 {
			om, _ = out[i].(map[string]any)
		}
		merged, err := m.mergeMap(om, pe, elem)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			out[i] = merged
		} else {
			idx.add(merged, len(out))
			out = append(out, merged)
		}
	}
	if kp.replace {
		return out, nil
	}
	ids := func(e any) (string, bool) {
		em, ok := e.(map[string]any)
		if !ok {
			return "", false
		}
		v, ok := em[keys[0]]
		return identity(v), ok && v != nil
	}
	items := make([]any, len(kp.items))
	for i, it := range kp.items {
		items[i] = it
	}
	if !hasOrder {
		return reorder(out, orig, nil, items, ids, path)
	}
	return reorder(out, orig, items, order, ids, path)
}

// keyIndex maps a merge key's value to the positions of the list elements
// carrying it, so merging n patch elements into m list elements costs
// O(n+m) rather than O(n*m).
type keyIndex struct {
	key string
	pos map[string][]int
}

// newKeyIndex indexes list by key.
func newKeyIndex(list []any, key string) keyIndex {
	x := keyIndex{key: key, pos: make(map[string][]int, len(list))}
	for i, e := range list {
		x.add(e, i)
	}
	return x
}

// add records that e is at position i.
func (x keyIndex) add(e any, i int) {
	if em, ok := e.(map[string]any); ok {
		if v, ok := em[x.key]; ok {
			id := identity(v)
			x.pos[id] = append(x.pos[id], i)
		}
	}
}

// find returns the position of the first element of list matching pe, or -1.
func (x keyIndex) find(list []any, pe map[string]any, keys []string) int {
	for _, i := range x.pos[identity(pe[x.key])] {
		if matches(list[i], pe, keys) {
			return i
		}
	}
	return -1
}

// matches reports whether list element e is the one patch element pe names:
// the first key equal, and each further key equal where both carry it.
func matches(e any, pe map[string]any, keys []string) bool {
	em, ok := e.(map[string]any)
	if !ok {
		return false
	}
	for i, k := range keys {
		ev, eok := em[k]
		pv, pok := pe[k]
		if i == 0 && !eok {
			return false
		}
		if eok && pok && !equal(ev, pv) {
			return false
		}
	}
	return true
}

// deleteMatching appends to out the elements of orig that match none of the
// delete elements, found through an index on the first key.
func deleteMatching(out, orig []any, deletes []map[string]any, keys []string) []any {
	if len(deletes) == 0 {
		return append(out, orig...)
	}
	byKey := make(map[string][]map[string]any, len(deletes))
	for _, d := range deletes {
		id := identity(d[keys[0]])
		byKey[id] = append(byKey[id], d)
	}
	for _, oe := range orig {
		om, ok := oe.(map[string]any)
		deleted := false
		if v, has := om[keys[0]]; ok && has {
			for _, d := range byKey[identity(v)] {
				if matches(om, d, keys) {
					deleted = true
					break
				}
			}
		}
		if !deleted {
			out = append(out, oe)
		}
	}
	return out
}

// reorder orders the merged list out the way Kubernetes does. The elements
// that order names (the $setElementOrder list, or else the patch list
// itself) come in order's order; the others, found only in the original,
// keep their original order, and the two runs are interleaved: an
// original-only element goes before a named one when it came before it in
// the original. patch holds the patch's elements when order is a
// $setElementOrder list, which must name all of them in the same relative
// order; nil skips that check. ids returns an element's identity and
// whether it has one.
func reorder(out, orig, patch, order []any, ids func(any) (string, bool), path string) ([]any, error) {
	rank := make(map[string]int, len(order))
	for i, e := range order {
		id, ok := ids(e)
		if !ok {
			return nil, invalidf("%s: %s[%d] does not identify an element (want the merge key or a primitive)", path, prefixSetOrder+lastField(path), i)
		}
		if _, dup := rank[id]; !dup {
			rank[id] = i
		}
	}
	if len(rank) == 0 {
		return out, nil
	}
	if err := checkPatchOrder(patch, rank, ids, path); err != nil {
		return nil, err
	}
	serverPos := make(map[string]int, len(orig))
	for i, e := range orig {
		if id, ok := ids(e); ok {
			if _, dup := serverPos[id]; !dup {
				serverPos[id] = i
			}
		}
	}
	var named, serverOnly []any
	for _, e := range out {
		if id, ok := ids(e); ok {
			if _, in := rank[id]; in {
				named = append(named, e)
				continue
			}
		}
		serverOnly = append(serverOnly, e)
	}
	slices.SortStableFunc(named, func(a, b any) int {
		ia, _ := ids(a)
		ib, _ := ids(b)
		return rank[ia] - rank[ib]
	})
	return interleave(serverOnly, named, ids, serverPos), nil
}

// checkPatchOrder verifies that every patch element is named in the order
// list (by rank) and that they appear in the same relative order.
func checkPatchOrder(patch []any, rank map[string]int, ids func(any) (string, bool), path string) error {
	last := -1
	for i, e := range patch {
		id, _ := ids(e)
		r, ok := rank[id]
		if !ok {
			return invalidf("%s[%d]: element is not in %s", path, i, prefixSetOrder+lastField(path))
		}
		if r < last {
			return invalidf("%s[%d]: elements are not in the order %s gives", path, i, prefixSetOrder+lastField(path))
		}
		last = r
	}
	return nil
}

// interleave merges two ordered lists: an element of left goes first when
// both elements were in the original and left's came earlier there;
// otherwise right's goes first.
func interleave(left, right []any, ids func(any) (string, bool), serverPos map[string]int) []any {
	out := make([]any, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) && j < len(right) {
		li, lok := position(left[i], ids, serverPos)
		ri, rok := position(right[j], ids, serverPos)
		if lok && rok && li < ri {
			out = append(out, left[i])
			i++
		} else {
			out = append(out, right[j])
			j++
		}
	}
	out = append(out, left[i:]...)
	return append(out, right[j:]...)
}

// position returns e's index in the original list, if it was there.
func position(e any, ids func(any) (string, bool), serverPos map[string]int) (int, bool) {
	id, ok := ids(e)
	if !ok {
		return 0, false
	}
	p, ok := serverPos[id]
	return p, ok
}
