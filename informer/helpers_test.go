package informer

import (
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/orkit/orkit/api/meta"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// recorder is a Handler that keeps its view of each key's final state
// (last add/update minus deletes) and counts what it was handed.
type recorder[T meta.Object] struct {
	mu                sync.Mutex
	view              map[string]string // key → resourceVersion
	adds, initialAdds int
	updates, deletes  int
	tombstones        int
	duplicateAdds     int // adds of a key the view already held
	sameRVUpdates     int // updates whose old and new resourceVersion are equal
	unknownDeletes    int // deletes of keys the view did not hold
	events            []string
}

func newRecorder[T meta.Object]() *recorder[T] { return &recorder[T]{view: map[string]string{}} }

func (r *recorder[T]) OnAdd(obj T, initial bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := KeyOf(obj)
	if _, ok := r.view[k]; ok {
		r.duplicateAdds++
	}
	r.view[k] = obj.GetObjectMeta().ResourceVersion
	r.adds++
	if initial {
		r.initialAdds++
	}
	r.events = append(r.events, "add "+k)
}

func (r *recorder[T]) OnUpdate(o, n T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o.GetObjectMeta().ResourceVersion == n.GetObjectMeta().ResourceVersion {
		r.sameRVUpdates++
	}
	r.view[KeyOf(n)] = n.GetObjectMeta().ResourceVersion
	r.updates++
	r.events = append(r.events, "update "+KeyOf(n))
}

func (r *recorder[T]) OnDelete(obj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var k string
	switch o := obj.(type) {
	case DeletedFinalStateUnknown[T]:
		k = o.Key
		r.tombstones++
		r.events = append(r.events, "tombstone "+k)
	case T:
		k = KeyOf(o)
		r.events = append(r.events, "delete "+k)
	default:
		panic(fmt.Sprintf("OnDelete got %T", obj))
	}
	if _, ok := r.view[k]; !ok {
		r.unknownDeletes++
	}
	delete(r.view, k)
	r.deletes++
}

func (r *recorder[T]) snapshot() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.view))
	for k, v := range r.view {
		out[k] = v
	}
	return out
}

func (r *recorder[T]) counts() (adds, updates, deletes, tombstones int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.adds, r.updates, r.deletes, r.tombstones
}

// cacheView is the informer cache as key → resourceVersion.
func cacheView[T meta.Object](inf *Informer[T]) map[string]string {
	out := map[string]string{}
	for _, o := range inf.Indexer().List() {
		out[KeyOf(o)] = o.GetObjectMeta().ResourceVersion
	}
	return out
}

func (r *recorder[T]) initial() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.initialAdds
}
