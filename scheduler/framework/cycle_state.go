package framework

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"sync"
	"sync/atomic"
)

// StateKey names a value in a CycleState; plugins use their own name
// (plus a suffix) so keys do not collide.
type StateKey string

// StateData is what plugins store in a CycleState. Clone must return a
// copy that later changes to the original do not affect (preemption
// clones the state to try removing victims).
type StateData interface {
	Clone() StateData
}

// CycleState carries data between the extension points of one scheduling
// cycle of one pod: PreFilter computes, Filter and Score read. It lives
// for that cycle only. Read and Write are safe for concurrent use; the
// map is copied on write and read with one atomic load, so the parallel
// Filter and Score workers never contend on a lock.
type CycleState struct {
	mu   sync.Mutex // serializes writers
	data atomic.Pointer[[]stateEntry]
	// skipScore lists priorities whose PreScore returned Skip.
	skipScore map[string]bool
	snapshot  *Snapshot
	ns        Namespaces
	podInfo   *PodInfo
	filters   []Predicate // the cycle's predicates, minus those skipped
}

// SetPodInfo records the PodInfo of the pod being scheduled, so plugins
// need not derive requests and affinity terms again.
func (c *CycleState) SetPodInfo(pi *PodInfo) { c.podInfo = pi }

// PodInfoFor returns the recorded PodInfo when it is pod's, else a new
// one derived from pod.
func (c *CycleState) PodInfoFor(pod *core.Pod) *PodInfo {
	if c != nil && c.podInfo != nil && c.podInfo.Pod == pod {
		return c.podInfo
	}
	return NewPodInfo(pod)
}

// SetSnapshot records the snapshot the cycle reads; the scheduler sets it
// before PreFilter.
func (c *CycleState) SetSnapshot(s *Snapshot) { c.snapshot = s }

// SetNamespaces records the namespaces (and their labels) the cycle's
// affinity terms are matched against; the scheduler sets it before
// PreFilter.
func (c *CycleState) SetNamespaces(ns Namespaces) { c.ns = ns }

// Namespaces returns what SetNamespaces recorded, nil if nothing.
func (c *CycleState) Namespaces() Namespaces {
	if c == nil {
		return nil
	}
	return c.ns
}

// Snapshot returns the snapshot of the cycle (nil if none was set).
// Plugins read it in PreFilter, Filter, PreScore, Score, PostFilter and
// Reserve to count pods cluster-wide. It is valid only until the cycle
// ends: Permit's wait and Bind run beside the next cycle, which updates
// the snapshot, so plugins must not read it there.
func (c *CycleState) Snapshot() *Snapshot { return c.snapshot }

// NewCycleState returns an empty state.
// stateEntry is one key and value; a cycle holds a handful, so a slice
// scanned linearly beats a map.
type stateEntry struct {
	key StateKey
	val StateData
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	c := &CycleState{}
	c.data.Store(&[]stateEntry{})
	return c
}

// update applies f to a copy of the entries and publishes the copy.
func (c *CycleState) update(f func([]stateEntry) []stateEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.data.Load()
	m := f(append(make([]stateEntry, 0, len(old)+1), old...))
	c.data.Store(&m)
}

// Write stores v under key, replacing any value.
func (c *CycleState) Write(key StateKey, v StateData) {
	c.update(func(es []stateEntry) []stateEntry {
		for i := range es {
			if es[i].key == key {
				es[i].val = v
				return es
			}
		}
		return append(es, stateEntry{key, v})
	})
}

// Read returns the value under key, or an error wrapping ErrNotFound.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	for _, e := range *c.data.Load() {
		if e.key == key {
			return e.val, nil
		}
	}
	return nil, errNotFound(key)
}

func errNotFound(key StateKey) error {
	return fmt.Errorf("cycle state %q: %w", key, ErrNotFound)
}

// Delete removes key.
func (c *CycleState) Delete(key StateKey) {
	c.update(func(es []stateEntry) []stateEntry {
		out := es[:0]
		for _, e := range es {
			if e.key != key {
				out = append(out, e)
			}
		}
		return out
	})
}

// Clone returns a deep copy (each value cloned with its Clone).
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	src := *c.data.Load()
	m := make([]stateEntry, len(src))
	for i, e := range src {
		m[i] = stateEntry{e.key, e.val.Clone()}
	}
	n := &CycleState{snapshot: c.snapshot, ns: c.ns, podInfo: c.podInfo, filters: c.filters}
	n.data.Store(&m)
	if c.skipScore != nil {
		n.skipScore = make(map[string]bool, len(c.skipScore))
		for k, v := range c.skipScore {
			n.skipScore[k] = v
		}
	}
	return n
}

// ReadAs returns the value under key as T: an error wrapping ErrNotFound
// when absent, ErrWrongType when of another type.
func ReadAs[T StateData](c *CycleState, key StateKey) (T, error) {
	var zero T
	v, err := c.Read(key)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("cycle state %q holds %T: %w", key, v, ErrWrongType)
	}
	return t, nil
}
