package bbolt

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store"
)

// replayChunk is how many history records one replay transaction scans.
const replayChunk = 512

// outBuffer is the capacity of a watch's channel: room for the hub to hand
// a consumer that keeps up its events directly, without waking the watch
// goroutine. It adds to Config.WatchBuffer.
const outBuffer = 16

// Watch delivers, in revision order, every event under prefix with a
// revision greater than rev (0: the current revision). Events older than
// the last published revision are replayed from history first, then the
// watch switches to live events with no gap and no duplicate.
//
// Errors: store.ErrInvalidKey for a bad prefix, store.ErrTooOld below the
// compacted revision, store.ErrFutureRevision above the current one,
// store.ErrClosed after Close.
//
// The channel is closed when ctx is done, after a final Event with Err
// store.ErrWatcherTooSlow when the consumer falls more than
// Config.WatchBuffer events behind the live stream, with Err
// store.ErrTooOld if a compaction overtakes the replay, or with Err
// store.ErrClosed when the Store closes (delivered only if the consumer is
// ready for it). Each watch owns one goroutine, which ends with the channel.
// Event values (KV.Value, Prev) are shared between watchers: read-only.
func (s *Store) Watch(ctx context.Context, prefix string, rev int64) (<-chan store.Event, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start, err := s.watchStart(rev)
	if err != nil {
		return nil, err
	}
	w := &watcher{
		s:      s,
		ctx:    ctx,
		prefix: prefix,
		limit:  s.opts.WatchBuffer,
		out:    make(chan store.Event, outBuffer),
		signal: make(chan struct{}, 1),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, store.ErrClosed
	}
	s.watchers.Add(1)
	s.mu.Unlock()
	go w.run(start)
	return w.out, nil
}

// watchStart resolves and checks a watch's start revision.
func (s *Store) watchStart(rev int64) (int64, error) {
	if s.isClosed() {
		return 0, store.ErrClosed
	}
	cur := s.rev.Load()
	switch {
	case rev == 0:
		return cur, nil
	case rev < 0:
		return 0, fmt.Errorf("watch from revision %d: %w", rev, store.ErrTooOld)
	case rev > cur:
		// A reader can see a commit a moment before the committer records
		// it; ask the file before refusing.
		err := s.view(func(tx *bolt.Tx) error {
			var err error
			cur, err = readU64(tx.Bucket(bucketMeta).Get(metaRev), "rev")
			return err
		})
		if err != nil {
			return 0, err
		}
		if rev > cur {
			return 0, fmt.Errorf("watch from revision %d, current is %d: %w", rev, cur, store.ErrFutureRevision)
		}
	}
	if c := s.compactRev.Load(); rev < c {
		return 0, fmt.Errorf("watch from revision %d, compacted at %d: %w", rev, c, store.ErrTooOld)
	}
	return rev, nil
}

// readHistory returns the events under prefix with revisions in
// (from, to], scanning at most replayChunk records, and the revision it
// scanned through. ErrTooOld if history after from has been compacted.
func (s *Store) readHistory(prefix string, from, to int64) ([]store.Event, int64, error) {
	var events []store.Event
	through := from
	err := s.view(func(tx *bolt.Tx) error {
		compact, err := readU64(tx.Bucket(bucketMeta).Get(metaCompact), "compact")
		if err != nil {
			return err
		}
		if from < compact {
			return fmt.Errorf("watch replay from revision %d, compacted at %d: %w", from, compact, store.ErrTooOld)
		}
		hist := tx.Bucket(bucketHistory)
		c := hist.Cursor()
		n := 0
		for k, v := c.Seek(u64(from + 1)); k != nil && n < replayChunk; k, v = c.Next() {
			rev, err := revOf(k)
			if err != nil {
				return err
			}
			if rev > to {
				break
			}
			n++
			through = rev
			ev, ok, err := historyEvent(hist, prefix, rev, v)
			if err != nil {
				return err
			}
			if ok {
				events = append(events, ev)
			}
		}
		if n < replayChunk {
			through = to
		}
		return nil
	})
	return events, through, err
}

// historyEvent rebuilds the event of history record rev if its key is
// under prefix, looking up the previous version for Prev.
func historyEvent(hist *bolt.Bucket, prefix string, rev int64, raw []byte) (store.Event, bool, error) {
	rec, err := decodeRecord(rev, raw)
	if err != nil || !keyHasPrefix(rec.key, prefix) {
		return store.Event{}, false, err
	}
	key := string(rec.key)
	ev := store.Event{Type: store.EventPut, Revision: rev,
		KV: store.KV{Key: key, Value: clone(rec.value), CreateRevision: rec.createRev, ModRevision: rev}}
	if rec.typ == recDelete {
		ev.Type, ev.KV = store.EventDelete, store.KV{Key: key, ModRevision: rev}
	}
	if rec.prevModRev != 0 {
		praw := hist.Get(u64(rec.prevModRev))
		if praw == nil {
			return store.Event{}, false, fmt.Errorf("history record %d (previous of %d) is missing: %w",
				rec.prevModRev, rev, store.ErrCorrupt)
		}
		prec, err := decodeRecord(rec.prevModRev, praw)
		if err != nil {
			return store.Event{}, false, err
		}
		ev.Prev = &store.KV{Key: key, Value: clone(prec.value), CreateRevision: rec.createRev, ModRevision: rec.prevModRev}
	}
	return ev, true, nil
}
