package patch

import (
	"cmp"
	"fmt"
	"slices"
)

// mergeList merges the patch list into orig (nil meaning absent) at path by
// the list's rule, then orders a merged list by order if hasOrder (a
// $setElementOrder directive), else by the patch list's order. patch is nil
// when only a $setElementOrder directive names the list.
func (m *merger) mergeList(orig, patch []any, path string, order []any, hasOrder bool) ([]any, error) {
	rule := m.schema.rule(path)
	if rule.strategy != atomic {
		if err := m.charge(path, len(orig)+len(patch)); err != nil {
			return nil, err
		}
	}
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
		if out, err = m.deleteMatching(out, orig, kp.deletes, keys, path); err != nil {
			return nil, err
		}
	}
	idx := newKeyIndex(out, keys[0])
	for _, pe := range kp.items {
		i, err := m.find(idx, out, pe, keys, path)
		if err != nil {
			return nil, err
		}
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

// find returns the position of the first element of list matching pe, or
// -1, using idx. Each comparison is charged to m.work.
func (m *merger) find(idx keyIndex, list []any, pe map[string]any, keys []string, path string) (int, error) {
	for _, i := range idx.pos[identity(pe[idx.key])] {
		if err := m.charge(path, 1); err != nil {
			return -1, err
		}
		if matches(list[i], pe, keys) {
			return i, nil
		}
	}
	return -1, nil
}

// charge spends n units of work at path, failing with ErrTooLarge when the
// budget is gone.
func (m *merger) charge(path string, n int) error {
	if m.work -= n; m.work < 0 {
		return fmt.Errorf("%w: merging %s: the patch needs more than %d list element visits and comparisons", ErrTooLarge, where(path), MaxListWork)
	}
	return nil
}

// matches reports whether list element e, whose first key equals pe's (the
// key index found it), is the one patch element pe names: each further key
// equal where both carry it.
func matches(e any, pe map[string]any, keys []string) bool {
	em, ok := e.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range keys[1:] {
		ev, eok := em[k]
		pv, pok := pe[k]
		if eok && pok && !equal(ev, pv) {
			return false
		}
	}
	return true
}

// deleteMatching appends to out the elements of orig that match none of the
// delete elements, found through an index on the first key.
func (m *merger) deleteMatching(out, orig []any, deletes []map[string]any, keys []string, path string) ([]any, error) {
	if len(deletes) == 0 {
		return append(out, orig...), nil
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
				if err := m.charge(path, 1); err != nil {
					return nil, err
				}
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
	return out, nil
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
	rank, err := orderRanks(order, ids, path)
	if err != nil || len(rank) == 0 {
		return out, err
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
	var named, serverOnly []placed
	for _, e := range out {
		p := placed{elem: e, server: -1}
		id, ok := ids(e)
		if s, in := serverPos[id]; ok && in {
			p.server = s
		}
		if r, in := rank[id]; ok && in {
			p.rank = r
			named = append(named, p)
		} else {
			serverOnly = append(serverOnly, p)
		}
	}
	slices.SortStableFunc(named, func(a, b placed) int { return cmp.Compare(a.rank, b.rank) })
	return interleave(serverOnly, named), nil
}

// placed is a merged list element with the positions ordering needs.
type placed struct {
	elem   any
	rank   int // index in the order list, for elements it names
	server int // index in the original list, -1 if not there
}

// orderRanks maps each element identity in order to its first index there.
func orderRanks(order []any, ids func(any) (string, bool), path string) (map[string]int, error) {
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
	return rank, nil
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

// interleave merges two ordered runs: an element of left goes first when
// both elements were in the original and left's came earlier there;
// otherwise right's goes first.
func interleave(left, right []placed) []any {
	out := make([]any, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) && j < len(right) {
		l, r := left[i], right[j]
		if l.server >= 0 && r.server >= 0 && l.server < r.server {
			out = append(out, l.elem)
			i++
		} else {
			out = append(out, r.elem)
			j++
		}
	}
	for ; i < len(left); i++ {
		out = append(out, left[i].elem)
	}
	for ; j < len(right); j++ {
		out = append(out, right[j].elem)
	}
	return out
}
