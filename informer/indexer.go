package informer

import (
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/orkit/orkit/api/meta"
)

// Indexer is a thread-safe map from cache key (KeyOf) to object with
// secondary indexes. Objects handed in and out are shared, not copied:
// callers must treat them as read-only (meta.DeepCopy before changing one).
// All methods are safe for concurrent use.
type Indexer[T meta.Object] struct {
	mu       sync.RWMutex
	items    map[string]T
	indexers Indexers[T]
	// indices: index name → indexed value → set of keys.
	indices map[string]map[string]map[string]struct{}
}

// NewIndexer returns an empty Indexer with the given indexes (nil: none).
func NewIndexer[T meta.Object](indexers Indexers[T]) *Indexer[T] {
	ix := &Indexer[T]{items: map[string]T{}, indexers: Indexers[T]{}, indices: map[string]map[string]map[string]struct{}{}}
	for name, f := range indexers {
		ix.indexers[name] = f
		ix.indices[name] = map[string]map[string]struct{}{}
	}
	return ix
}

func isNil[T any](obj T) bool {
	v := reflect.ValueOf(obj)
	return !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil())
}

func validObject[T meta.Object](obj T) error {
	if isNil(obj) {
		return fmt.Errorf("%w: nil object", ErrInvalidObject)
	}
	if obj.GetObjectMeta().Name == "" {
		return fmt.Errorf("%w: object without a name", ErrInvalidObject)
	}
	return nil
}

// indexValues computes every index of obj, or fails without side effects.
func (ix *Indexer[T]) indexValues(obj T) (map[string][]string, error) {
	out := make(map[string][]string, len(ix.indexers))
	for name, f := range ix.indexers {
		vals, err := f(obj)
		if err != nil {
			return nil, fmt.Errorf("%w: index %q on %s: %w", ErrIndexFunc, name, KeyOf(obj), err)
		}
		out[name] = vals
	}
	return out, nil
}

// Put stores obj under KeyOf(obj), replacing and returning any previous
// object. An invalid object or a failing index function leaves the store
// unchanged and returns an error.
func (ix *Indexer[T]) Put(obj T) (old T, existed bool, err error) {
	if err := validObject(obj); err != nil {
		return old, false, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	vals, err := ix.indexValues(obj)
	if err != nil {
		return old, false, err
	}
	key := KeyOf(obj)
	old, existed = ix.items[key]
	if existed {
		ix.unindex(key, old)
	}
	ix.items[key] = obj
	ix.index(key, vals)
	return old, existed, nil
}

// Delete removes key, returning the object it held.
func (ix *Indexer[T]) Delete(key string) (old T, existed bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old, existed = ix.items[key]
	if existed {
		ix.unindex(key, old)
		delete(ix.items, key)
	}
	return old, existed
}

func (ix *Indexer[T]) index(key string, vals map[string][]string) {
	for name, vs := range vals {
		idx := ix.indices[name]
		for _, v := range vs {
			set := idx[v]
			if set == nil {
				set = map[string]struct{}{}
				idx[v] = set
			}
			set[key] = struct{}{}
		}
	}
}

// unindex removes key from every index; index functions are pure, so
// recomputing them on the stored object finds the same values.
func (ix *Indexer[T]) unindex(key string, old T) {
	for name, f := range ix.indexers {
		vals, err := f(old)
		if err != nil {
			continue // cannot happen: old was indexed with these functions
		}
		idx := ix.indices[name]
		for _, v := range vals {
			if set := idx[v]; set != nil {
				delete(set, key)
				if len(set) == 0 {
					delete(idx, v)
				}
			}
		}
	}
}

// Get returns the object under key.
func (ix *Indexer[T]) Get(key string) (T, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	obj, ok := ix.items[key]
	return obj, ok
}

// List returns every object, in no particular order.
func (ix *Indexer[T]) List() []T {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]T, 0, len(ix.items))
	for _, obj := range ix.items {
		out = append(out, obj)
	}
	return out
}

// ListKeys returns every key, sorted.
func (ix *Indexer[T]) ListKeys() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]string, 0, len(ix.items))
	for k := range ix.items {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Len returns the number of objects.
func (ix *Indexer[T]) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.items)
}

// ByIndex returns the objects whose index name has value; ErrIndexNotFound
// if there is no such index.
func (ix *Indexer[T]) ByIndex(name, value string) ([]T, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	idx, ok := ix.indices[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrIndexNotFound, name)
	}
	set := idx[value]
	out := make([]T, 0, len(set))
	for k := range set {
		out = append(out, ix.items[k])
	}
	return out, nil
}

// IndexKeys returns the sorted keys whose index name has value.
func (ix *Indexer[T]) IndexKeys(name, value string) ([]string, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	idx, ok := ix.indices[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrIndexNotFound, name)
	}
	out := make([]string, 0, len(idx[value]))
	for k := range idx[value] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// AddIndexers adds indexes, indexing the objects already stored. A name
// that exists already, or an index function failing on a stored object,
// is an error and adds nothing.
func (ix *Indexer[T]) AddIndexers(indexers Indexers[T]) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	built := map[string]map[string]map[string]struct{}{}
	for name, f := range indexers {
		if _, ok := ix.indexers[name]; ok {
			return fmt.Errorf("%w: %q", ErrIndexConflict, name)
		}
		idx := map[string]map[string]struct{}{}
		for key, obj := range ix.items {
			vals, err := f(obj)
			if err != nil {
				return fmt.Errorf("%w: index %q on %s: %w", ErrIndexFunc, name, key, err)
			}
			for _, v := range vals {
				if idx[v] == nil {
					idx[v] = map[string]struct{}{}
				}
				idx[v][key] = struct{}{}
			}
		}
		built[name] = idx
	}
	for name, idx := range built {
		ix.indexers[name] = indexers[name]
		ix.indices[name] = idx
	}
	return nil
}

// Clear drops every object (the indexes stay defined).
func (ix *Indexer[T]) Clear() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.items = map[string]T{}
	for name := range ix.indices {
		ix.indices[name] = map[string]map[string]struct{}{}
	}
}
