package framework

import (
	"fmt"
	"sync"
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
// for that cycle only. Read and Write are safe for concurrent use, so
// Filter and Score may read it from parallel workers.
type CycleState struct {
	mu   sync.RWMutex
	data map[StateKey]StateData
	// skipScore lists priorities whose PreScore returned Skip.
	skipScore map[string]bool
	snapshot  *Snapshot
}

// SetSnapshot records the snapshot the cycle reads; the scheduler sets it
// before PreFilter.
func (c *CycleState) SetSnapshot(s *Snapshot) { c.snapshot = s }

// Snapshot returns the snapshot of the cycle (nil if none was set).
// Plugins read it in PreFilter and PreScore to count pods cluster-wide.
func (c *CycleState) Snapshot() *Snapshot { return c.snapshot }

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	return &CycleState{data: make(map[StateKey]StateData, 8)}
}

// Write stores v under key, replacing any value.
func (c *CycleState) Write(key StateKey, v StateData) {
	c.mu.Lock()
	c.data[key] = v
	c.mu.Unlock()
}

// Read returns the value under key, or an error wrapping ErrNotFound.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	c.mu.RLock()
	v, ok := c.data[key]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("cycle state %q: %w", key, ErrNotFound)
	}
	return v, nil
}

// Delete removes key.
func (c *CycleState) Delete(key StateKey) {
	c.mu.Lock()
	delete(c.data, key)
	c.mu.Unlock()
}

// Clone returns a deep copy (each value cloned with its Clone).
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := &CycleState{data: make(map[StateKey]StateData, len(c.data)), snapshot: c.snapshot}
	for k, v := range c.data {
		n.data[k] = v.Clone()
	}
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
