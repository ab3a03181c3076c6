package authz

import (
	"encoding/binary"
	"sync"

	"github.com/orkit/orkit/authn"
)

// maxGrantSets bounds the grant cache: past it the cache starts over (one
// entry per user and namespace seen since the last RBAC change; a cluster
// with thousands of nodes has thousands of node users).
const maxGrantSets = 8192

// grantCache holds resolved grant sets for one source revision. The zero
// value is empty and ready. Safe for concurrent use; entries are shared
// and never changed.
type grantCache struct {
	mu   sync.RWMutex
	rev  int64
	sets map[string]*grantSet
	pool sync.Pool // *[]byte key buffers
}

// get returns the set cached for u in ns at revision rev, or nil.
func (c *grantCache) get(rev int64, u *authn.User, ns string) *grantSet {
	bp := c.keyBuf()
	defer c.pool.Put(bp)
	*bp = appendGrantKey((*bp)[:0], u, ns)
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.rev != rev || c.sets == nil {
		return nil
	}
	return c.sets[string(*bp)] // no allocation for the lookup
}

// put stores gs for u in ns, resolved at revision rev. A put for an older
// revision than the cache's is dropped; a newer one starts the cache over.
func (c *grantCache) put(rev int64, u *authn.User, ns string, gs *grantSet) {
	key := string(appendGrantKey(nil, u, ns))
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.sets == nil || rev > c.rev || len(c.sets) >= maxGrantSets:
		if rev < c.rev {
			return
		}
		c.rev, c.sets = rev, make(map[string]*grantSet)
	case rev < c.rev:
		return
	}
	c.sets[key] = gs
}

func (c *grantCache) keyBuf() *[]byte {
	if bp, ok := c.pool.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, 128)
	return &b
}

// appendGrantKey appends what RBAC matching reads of a request — the
// namespace, the user's name and groups — each preceded by its length, so
// no two different users share a key whatever bytes their names hold.
func appendGrantKey(b []byte, u *authn.User, ns string) []byte {
	b = appendField(b, ns)
	b = appendField(b, u.Name)
	b = binary.AppendUvarint(b, uint64(len(u.Groups)))
	for _, g := range u.Groups {
		b = appendField(b, g)
	}
	return b
}

func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
