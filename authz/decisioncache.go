package authz

import (
	"container/list"
	"sync"
	"time"
)

// cacheEntry is one cached webhook answer.
type cacheEntry struct {
	decision Decision
	reason   string
	expires  time.Time
}

// decisionCache is a size-bounded LRU of webhook answers with per-entry
// expiry. Safe for concurrent use.
type decisionCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *cacheItem
	items map[string]*list.Element
}

type cacheItem struct {
	key   string
	entry cacheEntry
}

func newDecisionCache(max int) *decisionCache {
	return &decisionCache{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

// get returns the unexpired entry for key; an expired one is dropped.
func (c *decisionCache) get(key string, now time.Time) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return cacheEntry{}, false
	}
	it := el.Value.(*cacheItem)
	if !now.Before(it.entry.expires) {
		c.order.Remove(el)
		delete(c.items, key)
		return cacheEntry{}, false
	}
	c.order.MoveToFront(el)
	return it.entry, true
}

// put stores e under key, evicting the least recently used entry when full.
func (c *decisionCache) put(key string, e cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*cacheItem).entry = e
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&cacheItem{key: key, entry: e})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheItem).key)
	}
}

// len returns the number of entries, expired ones included.
func (c *decisionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
