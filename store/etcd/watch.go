package etcd

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/store"
)

// outBuffer is the capacity of a watch's channel; it adds to
// Config.WatchBuffer.
const outBuffer = 16

// Watch delivers, in revision order, every event under prefix with a
// revision greater than rev (0: the current revision), each with its
// previous value (etcd's prev_kv). It first checks rev with a read at that
// revision, so a compacted rev fails at once with store.ErrTooOld and one
// not written yet with store.ErrFutureRevision; then one etcd watch streams
// history and live events without a gap. When the member serving the
// watch fails or loses its leader, the watch resumes on another member
// from the last revision delivered, unnoticed by the consumer; if that
// revision has been compacted meanwhile, the watch ends with ErrTooOld.
// Progress (see Config.ProgressInterval and RequestProgress) arrives as
// store.EventProgress.
//
// Errors: store.ErrInvalidKey for a bad prefix, ctx's error, store.ErrClosed
// after Close.
//
// The channel is closed when ctx is done, after a final Event with Err
// store.ErrWatcherTooSlow when the consumer falls more than
// Config.WatchBuffer live events behind, with Err store.ErrTooOld when
// history still to be delivered is compacted, or with Err store.ErrClosed
// when the Store closes (delivered only if the consumer is ready for it).
// Each watch owns one goroutine, which ends with the channel.
func (s *Store) Watch(ctx context.Context, prefix string, rev int64) (<-chan store.Event, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if rev < 0 {
		return nil, fmt.Errorf("watch from revision %d: %w", rev, store.ErrTooOld)
	}
	cur, err := s.probe(ctx, rev)
	if err != nil {
		return nil, fmt.Errorf("watch %q: %w", prefix, err)
	}
	next := cur + 1
	if rev > 0 {
		next = toEtcd(rev) + 1
	}
	start, end := s.rangeOf(prefix)
	w := &watcher{
		s:        s,
		prefix:   prefix,
		start:    start,
		end:      end,
		limit:    s.cfg.WatchBuffer,
		out:      make(chan store.Event, outBuffer),
		history:  cur,
		next:     next,
		sent:     next - 1,
		consumer: ctx,
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, store.ErrClosed
	}
	s.watchers.Add(1)
	s.watching.Add(1)
	s.mu.Unlock()
	go w.run()
	return w.out, nil
}
