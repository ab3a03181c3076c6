package bbolt

import (
	"strings"
	"sync"
	"time"

	"github.com/orkit/orkit/store"
)

// hub fans committed events out to synced watchers. Watchers are grouped
// by prefix, so an event is matched once per distinct prefix, not once per
// watcher. The committer is the only publisher, so events arrive in
// revision order. A watcher still replaying history ("unsynced", in etcd's
// words) is not in the hub; it joins once it has caught up with rev.
type hub struct {
	mu     sync.Mutex
	rev    int64 // last published revision
	groups map[string]map[*watcher]struct{}
	closed bool
}

func newHub(rev int64) *hub {
	return &hub{rev: rev, groups: map[string]map[*watcher]struct{}{}}
}

// publish hands events (ascending revisions, ending at rev) to every
// matching watcher without blocking; a watcher whose buffer would overflow
// is marked too slow and removed. Watchers whose prefix did not see rev
// itself are told of the progress (coalesced and rate-limited, see
// watcher.progress), so they know how far the store has gone.
func (h *hub) publish(events []store.Event, rev int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	var matched []store.Event
	for prefix, ws := range h.groups {
		matched = matched[:0]
		for _, ev := range events {
			if strings.HasPrefix(ev.KV.Key, prefix) {
				matched = append(matched, ev)
			}
		}
		for w := range ws {
			if len(matched) > 0 && !w.enqueue(matched) {
				delete(ws, w)
				continue
			}
			if len(matched) == 0 || matched[len(matched)-1].Revision < rev {
				w.progress(rev, now)
			}
		}
		if len(ws) == 0 {
			delete(h.groups, prefix)
		}
	}
	h.rev = rev
}

// join adds w as a synced watcher if it has seen every published event
// (delivered through revision next); false means more history to replay
// first, or the hub is closed (closed reports which).
func (h *hub) join(w *watcher, next int64) (joined, closed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false, true
	}
	if next < h.rev {
		return false, false
	}
	w.setFloor(next)
	ws := h.groups[w.prefix]
	if ws == nil {
		ws = map[*watcher]struct{}{}
		h.groups[w.prefix] = ws
	}
	ws[w] = struct{}{}
	return true, false
}

// published returns the last published revision.
func (h *hub) published() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rev
}

// leave removes w (a no-op if it is not a member).
func (h *hub) leave(w *watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ws := h.groups[w.prefix]; ws != nil {
		delete(ws, w)
		if len(ws) == 0 {
			delete(h.groups, w.prefix)
		}
	}
}

// close drops every watcher; their goroutines see Store.closing and end.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	clear(h.groups)
}

// count returns the number of synced watchers (for tests and logs).
func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, ws := range h.groups {
		n += len(ws)
	}
	return n
}
