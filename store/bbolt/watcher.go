package bbolt

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/orkit/orkit/store"
)

// watcher is one Watch: its goroutine (run) first replays history, then
// joins the hub and forwards live events from its bounded pending buffer to
// out. The hub puts events straight into out (a small buffer) while the
// forwarder is idle, and otherwise appends to pending, never blocking; when
// pending would exceed limit the watcher is marked too slow, and run
// delivers what is pending followed by the final error event (room for
// which is always kept, since it is not counted in limit).
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

	busy bool  // the forwarder is sending a batch it took from pending
	sent int64 // revision of the last event or progress put into out

	progressRev   int64       // latest progress not yet taken by the forwarder
	progressWoke  time.Time   // when the forwarder was last woken for progress
	progressArmed bool        // progressTimer will wake the forwarder
	progressTimer *time.Timer // created on first deferral
}

// setFloor records the revision replay delivered through (under hub.mu).
func (w *watcher) setFloor(rev int64) {
	w.mu.Lock()
	w.floor = rev
	w.mu.Unlock()
}

// enqueue hands over the events above floor without blocking; false means
// the buffer overflowed, the watcher is ended and the hub must drop it.
// While the forwarder holds nothing and nothing is pending, events go
// straight into out (the hub's send cannot interleave with the
// forwarder's, both happen with the forwarder idle or under w.mu), saving
// the consumer a goroutine hand-off; the rest is appended to pending.
// Called by the hub with hub.mu held.
func (w *watcher) enqueue(events []store.Event) bool {
	w.mu.Lock()
	i := 0
	for i < len(events) && events[i].Revision <= w.floor {
		i++
	}
	events = events[i:]
	if !w.busy && len(w.pending) == 0 {
		events = w.sendNow(events)
	}
	ok := len(w.pending)+len(events) <= w.limit
	if !ok {
		w.failure = store.ErrWatcherTooSlow
	} else {
		w.pending = append(w.pending, events...)
	}
	w.mu.Unlock()
	if len(events) > 0 || !ok {
		w.wake()
	}
	return ok
}

// sendNow puts events into out while it has room and returns the rest.
// Called with w.mu held and the forwarder idle.
func (w *watcher) sendNow(events []store.Event) []store.Event {
	for i, ev := range events {
		select {
		case w.out <- ev:
			w.sent = ev.Revision
		default:
			return events[i:]
		}
	}
	return nil
}

// progress tells the watcher that the store reached rev with nothing newer
// under its prefix than what it was already given (store.EventProgress).
// Progress is coalesced and rate-limited: the forwarder sends only the
// latest, after any pending events, and is woken for progress alone at most
// once per Config.ProgressInterval (a timer delivers the deferred one), so
// idle watchers cost a commit almost nothing. Called by the hub with hub.mu
// held; now is the publish time.
func (w *watcher) progress(rev int64, now time.Time) {
	interval := w.s.opts.ProgressInterval
	if interval < 0 {
		return
	}
	w.mu.Lock()
	if rev <= w.floor || w.failure != nil {
		w.mu.Unlock()
		return
	}
	w.progressRev = rev
	wake := false
	switch {
	case w.progressArmed:
	case now.Sub(w.progressWoke) >= interval:
		w.progressWoke, wake = now, true
	default:
		w.progressArmed = true
		wait := interval - now.Sub(w.progressWoke)
		if w.progressTimer == nil {
			w.progressTimer = time.AfterFunc(wait, w.progressDue)
		} else {
			w.progressTimer.Reset(wait)
		}
	}
	w.mu.Unlock()
	if wake {
		w.wake()
	}
}

// progressDue runs on the progress timer: it wakes the forwarder for the
// deferred progress.
func (w *watcher) progressDue() {
	w.mu.Lock()
	w.progressArmed, w.progressWoke = false, time.Now()
	w.mu.Unlock()
	w.wake()
}

// wake signals the forwarder without blocking.
func (w *watcher) wake() {
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// stopProgress stops the progress timer when the watch ends.
func (w *watcher) stopProgress() {
	w.mu.Lock()
	if w.progressTimer != nil {
		w.progressTimer.Stop()
	}
	w.mu.Unlock()
}

// errStop ends run without a final event (ctx done).
var errStop = errors.New("watch stopped")

// run is the watch goroutine.
func (w *watcher) run(start int64) {
	defer w.s.watchers.Done()
	defer close(w.out)
	defer w.stopProgress()
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

// forward moves live events from pending to out, each batch followed by
// the latest progress if it is newer than everything sent, until the
// watcher fails, ctx ends or the Store closes. While it sends, busy keeps
// the hub from sending directly.
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
		failure, progress := w.failure, w.progressRev
		w.progressRev = 0
		if len(batch) > 0 {
			w.sent = max(w.sent, batch[len(batch)-1].Revision)
		}
		if progress <= w.sent {
			progress = 0
		} else {
			w.sent = progress
		}
		w.busy = len(batch) > 0 || progress > 0
		w.mu.Unlock()
		err := w.sendBatch(batch, progress)
		w.mu.Lock()
		w.busy = false
		w.mu.Unlock()
		if err != nil {
			return err
		}
		if failure != nil {
			return failure
		}
	}
}

// sendBatch sends batch and then, if non-zero, a progress event; it clears
// batch for reuse.
func (w *watcher) sendBatch(batch []store.Event, progress int64) error {
	for i := range batch {
		if err := w.send(batch[i]); err != nil {
			return err
		}
		batch[i] = store.Event{}
	}
	if progress > 0 {
		return w.send(store.Event{Type: store.EventProgress, Revision: progress})
	}
	return nil
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
