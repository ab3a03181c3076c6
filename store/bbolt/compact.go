package bbolt

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store"
)

// compactChunk is how many history records one compaction transaction
// visits, so compaction never holds the write lock for long.
const compactChunk = 2048

// Compact discards history older than rev. It first records rev as the
// compacted revision (from then on Lists below rev and Watches from below
// rev fail with store.ErrTooOld), then deletes, in short transactions, the
// records no read at rev or later can need: every version superseded at or
// before rev, and every delete at or before rev. The newest version of each
// key at rev stays, so Lists at rev keep working. Compacting to a revision
// at or below the compacted one is a no-op; above the current revision it
// is store.ErrFutureRevision. If ctx ends (or the process dies) midway,
// the remaining deletions are finished by the next Compact or Open.
func (s *Store) Compact(ctx context.Context, rev int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.isClosed() {
		return store.ErrClosed
	}
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	if cur := s.rev.Load(); rev > cur {
		return fmt.Errorf("compact to revision %d, current is %d: %w", rev, cur, store.ErrFutureRevision)
	}
	if rev <= s.compactRev.Load() {
		return nil
	}
	err := guard(s.path, func() error {
		return s.db.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(metaCompact, u64(rev))
		})
	})
	if err != nil {
		return s.closedOr(fmt.Errorf("compact to revision %d: %w", rev, err))
	}
	s.compactRev.Store(rev)
	s.log.Info("compacting", "revision", rev)
	return s.finishCompaction(ctx)
}

// finishCompaction deletes the records made obsolete by the recorded
// compacted revision, chunk by chunk, advancing compact-done as it goes.
func (s *Store) finishCompaction(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		more := false
		err := guard(s.path, func() error {
			return s.db.Update(func(tx *bolt.Tx) error {
				var err error
				more, err = compactStep(tx)
				return err
			})
		})
		if err != nil {
			return s.closedOr(fmt.Errorf("compact: %w", err))
		}
		if !more {
			return nil
		}
	}
}

// compactStep visits up to compactChunk records in (compact-done, compact]
// and deletes what they make obsolete; more reports unfinished work.
func compactStep(tx *bolt.Tx) (more bool, err error) {
	meta, hist := tx.Bucket(bucketMeta), tx.Bucket(bucketHistory)
	target, err := readU64(meta.Get(metaCompact), "compact")
	if err != nil {
		return false, err
	}
	done, err := readU64(meta.Get(metaCompactDone), "compact-done")
	if err != nil || done >= target {
		return false, err
	}
	var obsolete [][]byte
	through, n := target, 0
	c := hist.Cursor()
	for k, v := c.Seek(u64(done + 1)); k != nil; k, v = c.Next() {
		rev, err := revOf(k)
		if err != nil {
			return false, err
		}
		if rev > target {
			break
		}
		if n == compactChunk {
			through, more = rev-1, true
			break
		}
		n++
		rec, err := decodeRecord(rev, v)
		if err != nil {
			return false, err
		}
		if rec.prevModRev != 0 {
			obsolete = append(obsolete, u64(rec.prevModRev))
		}
		if rec.typ == recDelete {
			obsolete = append(obsolete, clone(k))
		}
	}
	for _, k := range obsolete {
		if err := hist.Delete(k); err != nil {
			return false, err
		}
	}
	return more, meta.Put(metaCompactDone, u64(through))
}

// closedOr maps bbolt's "database not open" to store.ErrClosed.
func (s *Store) closedOr(err error) error {
	if s.isClosed() {
		return fmt.Errorf("%w: %w", store.ErrClosed, err)
	}
	return err
}
