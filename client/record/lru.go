package record

import "container/list"

// lru is a map of at most max entries that forgets the least recently
// used one when full. It is not safe for concurrent use (the correlator
// holds its lock).
type lru[V any] struct {
	max   int
	order *list.List // of *lruEntry[V], most recent first
	items map[string]*list.Element
}

type lruEntry[V any] struct {
	key   string
	value V
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

// get returns the value of key and marks it used.
func (l *lru[V]) get(key string) (V, bool) {
	if e, ok := l.items[key]; ok {
		l.order.MoveToFront(e)
		return e.Value.(*lruEntry[V]).value, true
	}
	var zero V
	return zero, false
}

// put sets key to v, forgetting the least recently used entry if full.
func (l *lru[V]) put(key string, v V) {
	if e, ok := l.items[key]; ok {
		e.Value.(*lruEntry[V]).value = v
		l.order.MoveToFront(e)
		return
	}
	l.items[key] = l.order.PushFront(&lruEntry[V]{key: key, value: v})
	if l.order.Len() > l.max {
		last := l.order.Back()
		l.order.Remove(last)
		delete(l.items, last.Value.(*lruEntry[V]).key)
	}
}

func (l *lru[V]) len() int { return l.order.Len() }
