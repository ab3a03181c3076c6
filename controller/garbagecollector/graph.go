package garbagecollector

import (
	"slices"
	"sync"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// node is what the graph knows of one object: its identity, the mapping
// of the resource it was seen through, its owners and its deletion state.
// Nodes handed out by the graph are copies.
type node struct {
	uid        meta.UID
	mapping    client.Mapping
	namespace  string
	name       string
	owners     []meta.OwnerReference
	deleting   bool
	finalizers []string
}

func (n *node) hasFinalizer(f string) bool { return slices.Contains(n.finalizers, f) }

// ownerRef returns n's reference to owner, or nil.
func (n *node) ownerRef(owner meta.UID) *meta.OwnerReference {
	for i := range n.owners {
		if n.owners[i].UID == owner {
			return &n.owners[i]
		}
	}
	return nil
}

// waitingForDependents reports whether n is being deleted in the
// foreground (its dependents go first).
func (n *node) waitingForDependents() bool {
	return n.deleting && n.hasFinalizer(meta.FinalizerDeleteDependents)
}

func (n *node) clone() *node {
	c := *n
	c.owners = slices.Clone(n.owners)
	c.finalizers = slices.Clone(n.finalizers)
	return &c
}

// graph is the ownership graph: nodes by UID and, for every owner UID
// (whether or not the owner itself is known), the UIDs of its
// dependents. Safe for concurrent use.
type graph struct {
	mu         sync.RWMutex
	nodes      map[meta.UID]*node
	dependents map[meta.UID]map[meta.UID]struct{}
}

func newGraph() *graph {
	return &graph{nodes: map[meta.UID]*node{}, dependents: map[meta.UID]map[meta.UID]struct{}{}}
}

// upsert stores n (which the graph now owns) and returns the owners it
// had before (nil for a new node).
func (g *graph) upsert(n *node) (oldOwners []meta.OwnerReference) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if old, ok := g.nodes[n.uid]; ok {
		oldOwners = old.owners
		g.unlinkLocked(old)
	}
	g.nodes[n.uid] = n
	for _, o := range n.owners {
		deps, ok := g.dependents[o.UID]
		if !ok {
			deps = map[meta.UID]struct{}{}
			g.dependents[o.UID] = deps
		}
		deps[n.uid] = struct{}{}
	}
	return oldOwners
}

// remove drops the node uid and returns it (a copy), if it was there.
func (g *graph) remove(uid meta.UID) (*node, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	if !ok {
		return nil, false
	}
	g.unlinkLocked(n)
	delete(g.nodes, uid)
	return n.clone(), true
}

func (g *graph) unlinkLocked(n *node) {
	for _, o := range n.owners {
		if deps, ok := g.dependents[o.UID]; ok {
			delete(deps, n.uid)
			if len(deps) == 0 {
				delete(g.dependents, o.UID)
			}
		}
	}
}

// get returns a copy of the node uid.
func (g *graph) get(uid meta.UID) (*node, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.nodes[uid]
	if !ok {
		return nil, false
	}
	return n.clone(), true
}

// dependentsOf returns copies of the known dependents of owner.
func (g *graph) dependentsOf(owner meta.UID) []*node {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]*node, 0, len(g.dependents[owner]))
	for uid := range g.dependents[owner] {
		if n, ok := g.nodes[uid]; ok {
			out = append(out, n.clone())
		}
	}
	return out
}

// dependentUIDs returns the UIDs of owner's dependents.
func (g *graph) dependentUIDs(owner meta.UID) []meta.UID {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]meta.UID, 0, len(g.dependents[owner]))
	for uid := range g.dependents[owner] {
		out = append(out, uid)
	}
	return out
}

// uidsOf returns the UIDs of the objects seen through resource gvr.
func (g *graph) uidsOf(gvr meta.GroupVersionResource) []meta.UID {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []meta.UID
	for uid, n := range g.nodes {
		if n.mapping.Resource == gvr {
			out = append(out, uid)
		}
	}
	return out
}

// len returns how many objects the graph holds.
func (g *graph) len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.nodes)
}
