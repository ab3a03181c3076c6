package apiserver

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/meta"
)

// listSnapshot is the objects of one state of a watch cache.
type listSnapshot[T any] struct {
	changes int64
	items   []*T
}

// CachedList returns a function listing the objects of gvr (all
// namespaces) from the server's watch cache, like an informer's lister:
// the list is rebuilt only when the cache changed since the last call,
// so admission plugins can call it on every request. The returned objects
// are shared and must not be changed. The function is safe for concurrent
// use and returns nil when gvr is not served.
func CachedList[T any](s *Server, gvr meta.GroupVersionResource) func() []*T {
	var cur atomic.Pointer[listSnapshot[T]]
	return func() []*T {
		c, ok := s.Cache(gvr)
		if !ok || c == nil {
			return nil
		}
		n := c.Changes()
		if p := cur.Load(); p != nil && p.changes == n {
			return p.items
		}
		items := list[T](s, gvr, "")
		cur.Store(&listSnapshot[T]{changes: n, items: items})
		return items
	}
}

// headerWarnings records admission warnings as Warning headers of the
// response being written (each text once). Safe for concurrent use.
type headerWarnings struct {
	mu   sync.Mutex
	h    http.Header
	seen map[string]bool
}

var _ admission.WarningRecorder = (*headerWarnings)(nil)

// AddWarning adds text as a Warning header unless it was added already.
func (w *headerWarnings) AddWarning(text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[text] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[text] = true
	addWarnings(w.h, []string{text})
}
