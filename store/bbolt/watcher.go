package bbolt

import (
	"context"
	"errors"
	"sync"

	"github.com/orkit/orkit/store"
)

// watcher is one Watch: its goroutine (run) first replays history, then
// joins the hub and forwards live events from its bounded pending buffer to
// out. The hub appends to pending without blocking; when pending would
// exceed limit the watcher is marked too slow, and run delivers what is
// pending followed by the final error event (room for which is always
// kept, since it is not counted in limit).
type watcher struct {
	s      *Store
	ctx    context.Context
	prefix string
	limit  int
	out    chan store.Event
	signal chan struct{} // capacity 1: "pending or failure changed"

	mu      sync.Mutex
	floor   int64 // live events at or below floor were already replayed
	pending []store.Event
	failure error // set once: the watcher is out of the hub
}

// setFloor records the revision replay delivered through (under hub.mu).
func (w *watcher) setFloor(rev int64) {
	w.mu.Lock()
	w.floor = rev
	w.mu.Unlock()
}

// enqueue appends the events above floor without blocking; false means the
// buffer overflowed, the watcher is ended and the hub must drop it. Called
// by the hub with hub.mu held.
func (w *watcher) enqueue(events []store.Event) bool {
	w.mu.Lock()
	n := 0
	for _, ev := range events {
		if ev.Revision > w.floor {
			n++
		}
	}
	ok := len(w.pending)+n <= w.limit
	if !ok {
		w.failure = store.ErrWatcherTooSlow
	} else if n > 0 {
		for _, ev := range events {
			if ev.Revision > w.floor {
				w.pending = append(w.pending, ev)
			}
		}
	}
	w.mu.Unlock()
	if n > 0 || !ok {
		select {
		case w.signal <- struct{}{}:
		default:
		}
	}
	return ok
}

// progress tells the watcher that the store reached rev with nothing new
// under its prefix: it queues a store.EventProgress, replacing one already
// queued last, and drops it when the buffer is full (progress is advisory).
// Called by the hub with hub.mu held.
func (w *watcher) progress(rev int64) {
	w.mu.Lock()
	queued := false
	switch n := len(w.pending); {
	case rev <= w.floor || w.failure != nil:
	case n > 0 && w.pending[n-1].Type == store.EventProgress:
		w.pending[n-1].Revision, queued = rev, true
	case n < w.limit:
		w.pending = append(w.pending, store.Event{Type: store.EventProgress, Revision: rev})
		queued = true
	}
	w.mu.Unlock()
	if queued {
		select {
		case w.signal <- struct{}{}:
		default:
		}
	}
}

// errStop ends run without a final event (ctx done).
var errStop = errors.New("watch stopped")

// run is the watch goroutine.
func (w *watcher) run(start int64) {
	defer w.s.watchers.Done()
	defer close(w.out)
	err := w.replay(start)
	if err == nil {
		err = w.forward()
	}
	w.s.hub.leave(w)
	switch {
	case errors.Is(err, errStop):
	case errors.Is(err, store.ErrClosed):
		select { // best effort: never hold Close up
		case w.out <- store.Event{Err: store.ErrClosed}:
		default:
		}
	default:
		if errors.Is(err, store.ErrWatcherTooSlow) {
			w.s.log.Warn("watcher too slow, ended", "prefix", w.prefix, "buffer", w.limit)
		}
		_ = w.send(store.Event{Err: err})
	}
}

// replay delivers history from start until the watcher has caught up with
// the hub, then joins it.
func (w *watcher) replay(start int64) error {
	next := start
	for {
		target := w.s.hub.published()
		if next >= target {
			joined, closed := w.s.hub.join(w, next)
			if closed {
				return store.ErrClosed
			}
			if joined {
				return nil
			}
			continue
		}
		events, through, err := w.s.readHistory(w.prefix, next, target)
		if err != nil {
			return err
		}
		for _, ev := range events {
			if err := w.send(ev); err != nil {
				return err
			}
		}
		next = through
	}
}

// forward moves live events from pending to out until the watcher fails,
// ctx ends or the Store closes.
func (w *watcher) forward() error {
	var batch []store.Event
	for {
		select {
		case <-w.signal:
		case <-w.ctx.Done():
			return errStop
		case <-w.s.closing:
			return store.ErrClosed
		}
		w.mu.Lock()
		batch, w.pending = w.pending, batch[:0]
		failure := w.failure
		w.mu.Unlock()
		for i := range batch {
			if err := w.send(batch[i]); err != nil {
				return err
			}
			batch[i] = store.Event{}
		}
		if failure != nil {
			return failure
		}
	}
}

// send delivers one event, giving up when ctx ends or the Store closes.
func (w *watcher) send(ev store.Event) error {
	select {
	case w.out <- ev:
		return nil
	case <-w.ctx.Done():
		return errStop
	case <-w.s.closing:
		return store.ErrClosed
	}
}
