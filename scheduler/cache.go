package scheduler

import (
	"fmt"
	"sync"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/scheduler/framework"
)

// Cache holds what the scheduler knows of every node: the node and the
// pods counted on it, which are the pods bound to it plus the pods the
// scheduler has assumed there (placed, binding in flight). Assuming
// before the binding completes lets the next cycle see the resources as
// taken; ForgetPod undoes it when the binding fails; an assumed pod whose
// binding finished but that the informer never confirmed is dropped after
// the TTL by Cleanup.
//
// Each change gives the node's NodeInfo a new generation and moves it to
// the front of a list, so UpdateSnapshot copies only the NodeInfos
// changed since the snapshot's generation. All methods are safe for
// concurrent use.
type Cache struct {
	mu         sync.Mutex
	ttl        time.Duration
	now        func() time.Time
	nodes      map[string]*nodeItem
	head       *nodeItem // most recently changed
	pods       map[string]*podState
	deleted    []string // nodes removed since the last UpdateSnapshot
	generation int64
}

type nodeItem struct {
	name       string
	info       *framework.NodeInfo
	prev, next *nodeItem
}

type podState struct {
	pi       *framework.PodInfo
	node     string
	assumed  bool
	finished bool      // binding finished (success); the TTL runs
	deadline time.Time // when an unconfirmed assumed pod expires
}

// NewCache returns an empty cache whose assumed pods expire ttl after
// their binding finished without the informer confirming them (0 means
// never).
func NewCache(ttl time.Duration) *Cache {
	return &Cache{ttl: ttl, now: time.Now, nodes: map[string]*nodeItem{}, pods: map[string]*podState{}}
}

// podKey identifies a pod: its UID, or namespace/name without one.
func podKey(pod *core.Pod) string {
	if pod.UID != "" {
		return string(pod.UID)
	}
	return framework.PodKey(pod)
}

// touch gives item a new generation and moves it to the list's front.
func (c *Cache) touch(item *nodeItem) {
	c.generation++
	item.info.Generation = c.generation
	if c.head == item {
		return
	}
	c.unlink(item)
	item.next = c.head
	if c.head != nil {
		c.head.prev = item
	}
	c.head = item
}

func (c *Cache) unlink(item *nodeItem) {
	if item.prev != nil {
		item.prev.next = item.next
	}
	if item.next != nil {
		item.next.prev = item.prev
	}
	if c.head == item {
		c.head = item.next
	}
	item.prev, item.next = nil, nil
}

func (c *Cache) item(name string) *nodeItem {
	it, ok := c.nodes[name]
	if !ok {
		it = &nodeItem{name: name, info: framework.NewNodeInfo(nil)}
		c.nodes[name] = it
	}
	return it
}

// AddNode adds or replaces node.
func (c *Cache) AddNode(node *core.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it := c.item(node.Name)
	it.info.SetNode(node)
	c.touch(it)
}

// UpdateNode replaces the node; the same as AddNode.
func (c *Cache) UpdateNode(node *core.Node) { c.AddNode(node) }

// RemoveNode forgets node. Pods still counted on it keep a node-less
// NodeInfo until they go, which snapshots leave out.
func (c *Cache) RemoveNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.nodes[name]
	if !ok {
		return
	}
	it.info.SetNode(nil)
	c.touch(it)
	if len(it.info.Pods) == 0 {
		c.unlink(it)
		delete(c.nodes, name)
	}
	c.deleted = append(c.deleted, name)
}

// AssumePod counts pi's pod (whose spec.nodeName is set) on its node
// before the binding is confirmed. The error wraps ErrAlreadyAssumed when
// the pod is in the cache.
func (c *Cache) AssumePod(pi *framework.PodInfo) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := podKey(pi.Pod)
	if _, ok := c.pods[key]; ok {
		return fmt.Errorf("pod %s: %w", framework.PodKey(pi.Pod), ErrAlreadyAssumed)
	}
	c.addLocked(pi, true)
	return nil
}

func (c *Cache) addLocked(pi *framework.PodInfo, assumed bool) {
	it := c.item(pi.Pod.Spec.NodeName)
	it.info.AddPod(pi)
	c.touch(it)
	c.pods[podKey(pi.Pod)] = &podState{pi: pi, node: pi.Pod.Spec.NodeName, assumed: assumed}
}

func (c *Cache) removeLocked(ps *podState) {
	delete(c.pods, podKey(ps.pi.Pod))
	it, ok := c.nodes[ps.node]
	if !ok {
		return
	}
	_ = it.info.RemovePod(ps.pi.Pod) // the pod was added to this node, so it is there
	c.touch(it)
	if it.info.Node() == nil && len(it.info.Pods) == 0 {
		c.unlink(it)
		delete(c.nodes, ps.node)
	}
}

// FinishBinding starts the expiry clock of an assumed pod whose binding
// was sent successfully. The error wraps ErrNotAssumed.
func (c *Cache) FinishBinding(pod *core.Pod) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[podKey(pod)]
	if !ok || !ps.assumed {
		return fmt.Errorf("pod %s: %w", framework.PodKey(pod), ErrNotAssumed)
	}
	ps.finished = true
	ps.deadline = c.now().Add(c.ttl)
	return nil
}

// ForgetPod removes an assumed pod (its binding failed). The error wraps
// ErrNotAssumed when the pod is not assumed.
func (c *Cache) ForgetPod(pod *core.Pod) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[podKey(pod)]
	if !ok || !ps.assumed {
		return fmt.Errorf("pod %s: %w", framework.PodKey(pod), ErrNotAssumed)
	}
	c.removeLocked(ps)
	return nil
}

// AddPod records a pod the informer saw bound: it confirms an assumed
// pod (moving it if it landed elsewhere) or adds it.
func (c *Cache) AddPod(pod *core.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps, ok := c.pods[podKey(pod)]; ok {
		c.removeLocked(ps)
	}
	c.addLocked(framework.NewPodInfo(pod), false)
}

// UpdatePod replaces a bound pod's state; the same as AddPod.
func (c *Cache) UpdatePod(pod *core.Pod) { c.AddPod(pod) }

// RemovePod forgets a pod (deleted, or finished).
func (c *Cache) RemovePod(pod *core.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps, ok := c.pods[podKey(pod)]; ok {
		c.removeLocked(ps)
	}
}

// IsAssumed reports whether pod is assumed and not yet confirmed.
func (c *Cache) IsAssumed(pod *core.Pod) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps, ok := c.pods[podKey(pod)]
	return ok && ps.assumed
}

// Has reports whether pod is in the cache (bound or assumed).
func (c *Cache) Has(pod *core.Pod) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pods[podKey(pod)]
	return ok
}

// Cleanup drops assumed pods whose binding finished more than the TTL ago
// and were never confirmed, and returns them.
func (c *Cache) Cleanup() []*core.Pod {
	if c.ttl <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	var out []*core.Pod
	for _, ps := range c.pods {
		if ps.assumed && ps.finished && now.After(ps.deadline) {
			c.removeLocked(ps)
			out = append(out, ps.pi.Pod)
		}
	}
	return out
}

// Counts returns the number of nodes and of pods (bound and assumed).
func (c *Cache) Counts() (nodes, pods int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range c.nodes {
		if it.info.Node() != nil {
			nodes++
		}
	}
	return nodes, len(c.pods)
}

// NodeInfo returns a clone of the cache's NodeInfo for name, or nil.
func (c *Cache) NodeInfo(name string) *framework.NodeInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it, ok := c.nodes[name]; ok {
		return it.info.Clone()
	}
	return nil
}

// UpdateSnapshot brings snap up to date: the NodeInfos changed since its
// generation are copied into it and removed nodes are dropped. The cost
// is proportional to the nodes changed, not to the cluster.
func (c *Cache) UpdateSnapshot(snap *framework.Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := snap.Generation()
	var upserts []*framework.NodeInfo
	var deletes []string
	for _, name := range c.deleted {
		if it, ok := c.nodes[name]; !ok || it.info.Node() == nil {
			deletes = append(deletes, name)
		}
	}
	c.deleted = nil
	for it := c.head; it != nil && it.info.Generation > gen; it = it.next {
		if it.info.Node() == nil {
			deletes = append(deletes, it.name)
			continue
		}
		upserts = append(upserts, it.info)
	}
	snap.Apply(c.generation, upserts, deletes)
}

// Snapshot returns a new snapshot of every known node, independent of
// the cache and of the scheduler's own snapshot: hand it to a Simulator
// to ask what would fit in the cluster as it is now.
func (c *Cache) Snapshot() *framework.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	infos := make([]*framework.NodeInfo, 0, len(c.nodes))
	for it := c.head; it != nil; it = it.next {
		if it.info.Node() != nil {
			infos = append(infos, it.info)
		}
	}
	s := framework.NewEmptySnapshot()
	s.Apply(c.generation, infos, nil)
	return s
}
