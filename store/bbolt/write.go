package bbolt

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store"
)

// opKind is the kind of a queued write.
type opKind uint8

const (
	opCreate opKind = iota + 1
	opUpdate
	opDelete
)

// op is one queued write and, once done is closed, its result. The writer
// owns it until it is queued, the committer until done is closed.
type op struct {
	ctx      context.Context
	kind     opKind
	key      string
	value    []byte // the Store's private copy
	expected int64

	rev  int64
	prev store.KV
	err  error
	done chan struct{}
}

// Create writes a new key. It returns store.ErrAlreadyExists if the key is
// present, store.ErrInvalidKey or store.ErrTooLarge for bad input (nothing
// is written), store.ErrClosed after Close. The returned revision is durable
// (fsynced) when Create returns.
//
// Once queued, a write is not abandoned when ctx ends: Create waits for the
// commit so its result is always the truth. A write whose ctx is already
// done when its transaction starts fails with ctx.Err() and is not applied.
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	o, err := s.submit(ctx, opCreate, key, value, 0)
	if err != nil {
		return 0, err
	}
	return o.rev, nil
}

// Update replaces key's value if its ModRevision equals expectedRev:
// store.ErrConflict otherwise (expectedRev 0 never matches),
// store.ErrNotFound if the key is absent. Durability and ctx as for Create.
func (s *Store) Update(ctx context.Context, key string, value []byte, expectedRev int64) (int64, error) {
	o, err := s.submit(ctx, opUpdate, key, value, expectedRev)
	if err != nil {
		return 0, err
	}
	return o.rev, nil
}

// Delete removes key if its ModRevision equals expectedRev (0: any),
// returning the deleted KV and the delete's revision. Errors as for Update.
func (s *Store) Delete(ctx context.Context, key string, expectedRev int64) (store.KV, int64, error) {
	o, err := s.submit(ctx, opDelete, key, nil, expectedRev)
	if err != nil {
		return store.KV{}, 0, err
	}
	return o.prev, o.rev, nil
}

// submit validates a write, queues it for the committer and waits for its
// result.
func (s *Store) submit(ctx context.Context, kind opKind, key string, value []byte, expected int64) (*op, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, err
	}
	if err := store.ValidateValue(key, value); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := &op{ctx: ctx, kind: kind, key: key, expected: expected, done: make(chan struct{})}
	if kind != opDelete {
		o.value = clone(value)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, store.ErrClosed
	}
	s.queue = append(s.queue, o)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	<-o.done
	return o, o.err
}

// commitLoop is the committer goroutine: it takes everything queued (up to
// the batch limits), commits it in one transaction and starts again at
// once. It exits when Close has begun and the queue is empty.
func (s *Store) commitLoop() {
	defer close(s.committerDone)
	debug.SetPanicOnFault(true)
	for {
		batch := s.nextBatch()
		if batch == nil {
			return
		}
		s.commit(batch)
		s.letWakersQueue()
	}
}

// letWakersQueue yields the processor while writers just woken by a
// commit are still queueing their next op (at most a few rounds, no timer):
// without it, on few cores the committer starts the next transaction before
// they run, and the writers split into two half-size cohorts.
func (s *Store) letWakersQueue() {
	prev := -1
	for range 4 {
		s.mu.Lock()
		n := len(s.queue)
		s.mu.Unlock()
		if n == prev {
			return
		}
		prev = n
		runtime.Gosched()
	}
}

// nextBatch blocks until writes are queued and removes a batch of them from
// the queue; nil means the Store is closing and nothing is left.
func (s *Store) nextBatch() []*op {
	for {
		s.mu.Lock()
		if n := len(s.queue); n > 0 {
			take, size := 0, 0
			for take < n && take < s.opts.MaxBatchOps {
				size += len(s.queue[take].value)
				if take > 0 && size > s.opts.MaxBatchBytes {
					break
				}
				take++
			}
			batch := make([]*op, take)
			copy(batch, s.queue)
			rest := copy(s.queue, s.queue[take:])
			clear(s.queue[rest:])
			s.queue = s.queue[:rest]
			s.mu.Unlock()
			return batch
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return nil
		}
		<-s.kick
	}
}

// errNothingToCommit rolls back a transaction in which every op failed.
var errNothingToCommit = errors.New("nothing to commit")

// commit runs batch in one bbolt transaction (one fsync). Each op is
// checked on its own: a failed precondition fails that op only. A storage
// error fails the whole batch and nothing of it is written. After the
// commit the events are published to watchers, then every writer is woken.
func (s *Store) commit(batch []*op) {
	var events []store.Event
	var last int64
	err := guard(s.path, func() error {
		return s.db.Update(func(tx *bolt.Tx) error {
			var err error
			events, last, err = applyBatch(tx, batch)
			return err
		})
	})
	switch {
	case errors.Is(err, errNothingToCommit):
	case err != nil:
		s.log.Error("commit failed", "ops", len(batch), "err", err)
		for _, o := range batch {
			if o.err == nil {
				o.err, o.rev, o.prev = fmt.Errorf("commit %q: %w", o.key, err), 0, store.KV{}
			}
		}
	default:
		s.commits.Add(1)
		s.committedWrites.Add(int64(len(events)))
		s.rev.Store(last)
		s.hub.publish(events, last)
	}
	for _, o := range batch {
		close(o.done)
	}
}

// applyBatch applies each op of batch to tx in order, giving each success
// the next revision. It returns the events, the last revision, and an error
// only for a storage failure (or errNothingToCommit).
func applyBatch(tx *bolt.Tx, batch []*op) ([]store.Event, int64, error) {
	meta, keys, hist := tx.Bucket(bucketMeta), tx.Bucket(bucketKeys), tx.Bucket(bucketHistory)
	hist.FillPercent = 1.0 // append-only: pack pages full
	rev, err := readU64(meta.Get(metaRev), "rev")
	if err != nil {
		return nil, 0, err
	}
	events := make([]store.Event, 0, len(batch))
	for _, o := range batch {
		o.err, o.rev, o.prev = nil, 0, store.KV{}
		if err := o.ctx.Err(); err != nil {
			o.err = err
			continue
		}
		ev, err := applyOp(keys, hist, o, rev+1)
		var pe *preconditionError
		if errors.As(err, &pe) {
			o.err = pe.err
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		rev++
		o.rev = rev
		events = append(events, ev)
	}
	if len(events) == 0 {
		return nil, 0, errNothingToCommit
	}
	return events, rev, meta.Put(metaRev, u64(rev))
}

// preconditionError marks an op that failed its own check (exists, missing,
// conflict) as opposed to a storage failure.
type preconditionError struct{ err error }

func (e *preconditionError) Error() string { return e.err.Error() }

func failed(format string, args ...any) error {
	return &preconditionError{err: fmt.Errorf(format, args...)}
}

// applyOp checks o against the key's current record and writes its history
// record and new current record at revision rev.
func applyOp(keys, hist *bolt.Bucket, o *op, rev int64) (store.Event, error) {
	k := []byte(o.key)
	raw := keys.Get(k)
	var cur current
	if raw != nil {
		var err error
		if cur, err = decodeCurrent(k, raw); err != nil {
			return store.Event{}, err
		}
	}
	switch {
	case o.kind == opCreate && raw != nil:
		return store.Event{}, failed("create %q: %w", o.key, store.ErrAlreadyExists)
	case o.kind != opCreate && raw == nil:
		return store.Event{}, failed("%s %q: %w", o.verb(), o.key, store.ErrNotFound)
	case o.kind == opUpdate && cur.modRev != o.expected,
		o.kind == opDelete && o.expected != 0 && cur.modRev != o.expected:
		return store.Event{}, failed("%s %q: at revision %d, expected %d: %w",
			o.verb(), o.key, cur.modRev, o.expected, store.ErrConflict)
	}
	ev := store.Event{Type: store.EventPut, Revision: rev, KV: store.KV{Key: o.key, Value: o.value, ModRevision: rev}}
	rec := record{typ: recPut, createRev: rev, key: k, value: o.value}
	if raw != nil {
		prev := store.KV{Key: o.key, Value: clone(cur.value), CreateRevision: cur.createRev, ModRevision: cur.modRev}
		ev.Prev, o.prev = &prev, prev
		rec.createRev, rec.prevModRev = cur.createRev, cur.modRev
	}
	if o.kind == opDelete {
		rec.typ, rec.value = recDelete, nil
		ev.Type, ev.KV = store.EventDelete, store.KV{Key: o.key, ModRevision: rev}
	} else {
		ev.KV.CreateRevision = rec.createRev
	}
	if err := hist.Put(u64(rev), encodeRecord(rec)); err != nil {
		return store.Event{}, err
	}
	if o.kind == opDelete {
		return ev, keys.Delete(k)
	}
	return ev, keys.Put(k, encodeCurrent(rec.createRev, rev, o.value))
}

func (o *op) verb() string {
	switch o.kind {
	case opCreate:
		return "create"
	case opUpdate:
		return "update"
	}
	return "delete"
}

// keyHasPrefix reports whether key (bbolt bytes) starts with prefix.
func keyHasPrefix(key []byte, prefix string) bool {
	return len(key) >= len(prefix) && string(key[:len(prefix)]) == prefix
}
