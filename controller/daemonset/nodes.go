package daemonset

import (
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// nodePlacement remembers, per node, what DaemonSet placement depends on
// (labels and taints), so that node events that change neither — status
// heartbeats, every few seconds per node — do not reconcile every
// DaemonSet. Safe for concurrent use.
type nodePlacement struct {
	mu   sync.Mutex
	seen map[string]placementKey
}

// placementKey is a node's labels and taints (without timeAdded).
type placementKey struct {
	labels map[string]string
	taints []core.Taint
}

func keyOf(n *core.Node) placementKey {
	taints := make([]core.Taint, len(n.Spec.Taints))
	for i, t := range n.Spec.Taints {
		t.TimeAdded = nil
		taints[i] = t
	}
	return placementKey{labels: maps.Clone(n.Labels), taints: taints}
}

func (k placementKey) equal(o placementKey) bool {
	return maps.Equal(k.labels, o.labels) && slices.Equal(k.taints, o.taints)
}

// changed records node's placement and reports whether it differs from
// the last one recorded (a new node differs).
func (p *nodePlacement) changed(n *core.Node) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := keyOf(n)
	if old, ok := p.seen[n.Name]; ok && old.equal(k) {
		return false
	}
	p.seen[n.Name] = k
	return true
}

func (p *nodePlacement) forget(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.seen, name)
}

// nodeRequests maps a node event to every DaemonSet when the node came,
// went, or changed its labels or taints; to nothing otherwise. It judges
// by the cache's current node, not the event's object (an update maps
// both the old and the new object; only the current state counts).
func (c *Controller) nodeRequests(n *core.Node) []controller.Request {
	cur, err := c.nodes.Get("", n.Name)
	if errors.Is(err, informer.ErrNotFound) {
		c.placement.forget(n.Name)
		return c.allSets()
	}
	if err != nil || !c.placement.changed(cur) {
		return nil
	}
	return c.allSets()
}
