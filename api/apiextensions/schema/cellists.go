package schema

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// keyedList is how CEL sees a list of x-kubernetes-list-type set or map:
// equality ignores order (and, for maps, compares items by their keys),
// and + merges instead of concatenating (a set adds the items it lacks; a
// map replaces items whose keys it has and appends the others), as in
// Kubernetes.
type keyedList struct {
	traits.Lister
	n     *node
	items []any // the converted items, for keys and merges
}

func newKeyedList(n *node, items []any) *keyedList {
	return &keyedList{Lister: types.NewDynamicList(types.DefaultTypeAdapter, items), n: n, items: items}
}

// key identifies an item: its list-map keys, or its whole value for a set.
func (l *keyedList) key(v any) string {
	if rv, ok := v.(ref.Val); ok {
		v = rv.Value()
	}
	if l.n.listType == "map" {
		m, _ := v.(map[string]any)
		key := make([]any, len(l.n.listMapKeys))
		for i, k := range l.n.listMapKeys {
			key[i] = lookup(m, k)
		}
		return jsonKey(key)
	}
	return jsonKey(v)
}

// Equal compares as sets or maps: same size, and each item of l has an
// equal item (for maps: the item with the same keys) in the other.
func (l *keyedList) Equal(other ref.Val) ref.Val {
	o, ok := other.(*keyedList)
	if !ok {
		return l.Lister.Equal(other)
	}
	if len(l.items) != len(o.items) {
		return types.False
	}
	byKey := make(map[string]ref.Val, len(o.items))
	for i := range o.items {
		byKey[o.key(o.items[i])] = o.Get(types.Int(i))
	}
	for i := range l.items {
		ov, found := byKey[l.key(l.items[i])]
		if !found || l.Get(types.Int(i)).Equal(ov) != types.True {
			return types.False
		}
	}
	return types.True
}

// Add merges any list into l.
func (l *keyedList) Add(other ref.Val) ref.Val {
	var items []any
	switch o := other.(type) {
	case *keyedList:
		items = o.items
	case traits.Lister:
		n := int(o.Size().(types.Int))
		for i := 0; i < n; i++ {
			items = append(items, native(o.Get(types.Int(i))))
		}
	default:
		return types.MaybeNoSuchOverloadErr(other)
	}
	out := append([]any(nil), l.items...)
	pos := make(map[string]int, len(out))
	for i, v := range out {
		pos[l.key(v)] = i
	}
	for _, v := range items {
		k := l.key(v)
		if i, found := pos[k]; found {
			if l.n.listType == "map" {
				out[i] = v
			}
			continue
		}
		pos[k] = len(out)
		out = append(out, v)
	}
	return newKeyedList(l.n, out)
}

// native turns a CEL value into its canonical JSON form (maps with string
// keys, lists, scalars) so that it keys like the list's own items.
func native(v ref.Val) any {
	switch x := v.(type) {
	case traits.Mapper:
		out := map[string]any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			if s, ok := k.Value().(string); ok {
				out[s] = native(x.Get(k))
			}
		}
		return out
	case traits.Lister:
		n := int(x.Size().(types.Int))
		out := make([]any, n)
		for i := 0; i < n; i++ {
			out[i] = native(x.Get(types.Int(i)))
		}
		return out
	}
	if v == types.NullValue {
		return nil
	}
	switch x := v.Value().(type) {
	case int64, float64, string, bool:
		return x
	}
	return v
}
