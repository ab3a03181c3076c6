package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orkit/orkit/store"
)

// Backoff between attempts to resume an interrupted etcd watch.
const (
	minResumeBackoff = 50 * time.Millisecond
	maxResumeBackoff = 5 * time.Second
)

// watcher is one Watch. Its goroutine (run) reads etcd watch responses
// into queue and moves queued events to out, so receiving from etcd never
// waits for the consumer. Events at or below history (the cluster's
// revision when the watch began) are replay and are queued without bound,
// as etcd sends them; live events above it count against limit, and one
// more ends the watch with store.ErrWatcherTooSlow after what is queued.
// Revisions in fields are etcd's.
type watcher struct {
	s          *Store
	consumer   context.Context
	prefix     string
	start, end string // etcd key range
	limit      int
	out        chan store.Event

	history int64         // events at or below it are replay
	next    int64         // where a (re)started etcd watch begins
	sent    int64         // the last revision queued (event or progress)
	queue   []store.Event // received, not yet in out
	live    int           // queued events above history
}

// errStop ends run without a final event (ctx done).
var errStop = errors.New("watch stopped")

// resumeError is an interruption of the etcd watch the watcher recovers
// from by watching again from next.
type resumeError struct{ cause error }

func (e resumeError) Error() string { return "etcd watch interrupted: " + e.cause.Error() }

// run is the watch goroutine.
func (w *watcher) run() {
	defer w.s.watchers.Done()
	defer w.s.watching.Add(-1)
	defer close(w.out)
	ctx, cancel := context.WithCancel(w.consumer)
	defer cancel()
	defer context.AfterFunc(w.s.life, cancel)()
	err := w.follow(ctx)
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
		w.finish(ctx, err)
	}
}

// follow runs etcd watches from next until one ends for good, resuming
// after interruptions (member down, leader lost) with a growing backoff.
func (w *watcher) follow(ctx context.Context) error {
	backoff := minResumeBackoff
	for {
		from := w.next
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		ch := w.s.cli.Watch(wctx, w.start, clientv3.WithRange(w.end), clientv3.WithRev(from),
			clientv3.WithPrevKV(), clientv3.WithProgressNotify())
		err := w.pump(ctx, ch)
		cancel()
		var re resumeError
		if !errors.As(err, &re) {
			return err
		}
		if w.next > from {
			backoff = minResumeBackoff
		}
		w.s.log.Warn("etcd watch interrupted, resuming", "prefix", w.prefix,
			"after", toStore(w.next-1), "backoff", backoff, "cause", re.cause)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return w.stopped()
		}
		backoff = min(2*backoff, maxResumeBackoff)
	}
}

// pump moves etcd responses into queue and queued events into out until
// the etcd watch ends, fails or ctx is done.
func (w *watcher) pump(ctx context.Context, ch clientv3.WatchChan) error {
	for {
		var out chan<- store.Event
		var head store.Event
		if len(w.queue) > 0 {
			out, head = w.out, w.queue[0]
		}
		select {
		case out <- head:
			w.pop()
			w.sendReady()
		case resp, ok := <-ch:
			if !ok {
				if ctx.Err() != nil {
					return w.stopped()
				}
				return resumeError{errors.New("etcd watch channel closed")}
			}
			if err := w.handle(resp); err != nil {
				return err
			}
			w.sendReady()
		case <-ctx.Done():
			return w.stopped()
		}
	}
}

// sendReady moves queued events into out while it has room.
func (w *watcher) sendReady() {
	for len(w.queue) > 0 {
		select {
		case w.out <- w.queue[0]:
			w.pop()
		default:
			return
		}
	}
}

// pop drops the head of queue, which has been sent.
func (w *watcher) pop() {
	if w.queue[0].Type != store.EventProgress && toEtcd(w.queue[0].Revision) > w.history {
		w.live--
	}
	w.queue[0] = store.Event{}
	w.queue = w.queue[1:]
}

// handle queues the events or progress of one etcd response, or returns
// why the etcd watch ended.
func (w *watcher) handle(resp clientv3.WatchResponse) error {
	switch {
	case resp.CompactRevision != 0:
		return fmt.Errorf("watch %q after revision %d, compacted at %d: %w",
			w.prefix, toStore(w.next-1), toStore(resp.CompactRevision), store.ErrTooOld)
	case resp.Canceled:
		err := resp.Err()
		if errors.Is(err, rpctypes.ErrCompacted) {
			return fmt.Errorf("watch %q after revision %d: %w", w.prefix, toStore(w.next-1), store.ErrTooOld)
		}
		if err == nil {
			err = errors.New("canceled by etcd")
		}
		return resumeError{err}
	case resp.IsProgressNotify():
		w.progress(resp.Header.Revision)
		return nil
	}
	for _, e := range resp.Events {
		ev, err := w.event(e)
		if err != nil {
			return err
		}
		if live := e.Kv.ModRevision > w.history; live {
			if w.live >= w.limit {
				return fmt.Errorf("watch %q: %d live events undelivered: %w", w.prefix, w.live, store.ErrWatcherTooSlow)
			}
			w.live++
		}
		w.queue = append(w.queue, ev)
		w.sent, w.next = e.Kv.ModRevision, e.Kv.ModRevision+1
	}
	return nil
}

// event converts an etcd event. An update or delete without its previous
// value means etcd could not read it any more (compacted while the event
// was replayed): the watch cannot deliver it faithfully and ends with
// store.ErrTooOld.
func (w *watcher) event(e *clientv3.Event) (store.Event, error) {
	kv := w.s.kv(e.Kv)
	ev := store.Event{Type: store.EventPut, KV: kv, Revision: kv.ModRevision}
	if e.Type == clientv3.EventTypeDelete {
		ev.Type, ev.KV = store.EventDelete, store.KV{Key: kv.Key, ModRevision: kv.ModRevision}
	}
	switch {
	case e.PrevKv != nil:
		prev := w.s.kv(e.PrevKv)
		ev.Prev = &prev
	case !e.IsCreate():
		return store.Event{}, fmt.Errorf("watch %q: previous value of %q before revision %d compacted: %w",
			w.prefix, kv.Key, kv.ModRevision, store.ErrTooOld)
	}
	return ev, nil
}

// progress queues a store.EventProgress for etcd revision rev, replacing a
// progress event still queued, unless it is not newer than what was
// queued already.
func (w *watcher) progress(rev int64) {
	if rev <= w.sent {
		return
	}
	w.sent, w.next = rev, rev+1
	ev := store.Event{Type: store.EventProgress, Revision: toStore(rev)}
	if n := len(w.queue); n > 0 && w.queue[n-1].Type == store.EventProgress {
		w.queue[n-1] = ev
		return
	}
	w.queue = append(w.queue, ev)
}

// finish delivers what is queued and then the final error event, giving
// up when ctx ends.
func (w *watcher) finish(ctx context.Context, err error) {
	w.queue = append(w.queue, store.Event{Err: err})
	for _, ev := range w.queue {
		select {
		case w.out <- ev:
		case <-ctx.Done():
			return
		}
	}
}

// stopped is the reason ctx ended: the Store closing or the consumer.
func (w *watcher) stopped() error {
	if w.s.life.Err() != nil {
		return store.ErrClosed
	}
	return errStop
}
