package bbolt

import (
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store"
)

// load initialises a new file's buckets, or checks an existing file's
// schema and (unless SkipVerify) every page, then reads the revisions into
// memory. Errors about the file's content wrap store.ErrCorrupt.
func (s *Store) load() error {
	fresh := false
	err := guard(s.path, func() error {
		return s.db.View(func(tx *bolt.Tx) error {
			k, _ := tx.Cursor().First()
			fresh = k == nil
			return nil
		})
	})
	if err != nil {
		return err
	}
	if fresh {
		err = guard(s.path, func() error { return s.db.Update(initSchema) })
		if err != nil {
			return fmt.Errorf("initialise %s: %w", s.path, err)
		}
	}
	return guard(s.path, func() error {
		return s.db.View(func(tx *bolt.Tx) error {
			if err := checkSchema(tx); err != nil {
				return fmt.Errorf("%s: %w", s.path, err)
			}
			if !fresh && !s.opts.SkipVerify {
				if err := verifyPages(tx); err != nil {
					return fmt.Errorf("%s: %w", s.path, err)
				}
			}
			if err := s.loadRevisions(tx); err != nil {
				return fmt.Errorf("%s: %w", s.path, err)
			}
			return nil
		})
	})
}

// initSchema creates the buckets of an empty file.
func initSchema(tx *bolt.Tx) error {
	meta, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketKeys, bucketHistory} {
		if _, err := tx.CreateBucket(name); err != nil {
			return err
		}
	}
	if err := meta.Put(metaMagic, []byte(schemaMagic)); err != nil {
		return err
	}
	return meta.Put(metaVersion, u64(schemaVersion))
}

// checkSchema verifies that tx's file is an orkit store this code can read.
func checkSchema(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		var names []string
		_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, fmt.Sprintf("%q", name))
			return nil
		})
		return fmt.Errorf("a bbolt file of another program (buckets %s, no %s): %w",
			strings.Join(names, ", "), bucketMeta, store.ErrCorrupt)
	}
	if got := meta.Get(metaMagic); string(got) != schemaMagic {
		return fmt.Errorf("schema magic is %q, want %q: %w", got, schemaMagic, store.ErrCorrupt)
	}
	v, err := readU64(meta.Get(metaVersion), "version")
	if err != nil {
		return err
	}
	if v != schemaVersion {
		return fmt.Errorf("schema version %d, this build reads %d: %w", v, schemaVersion, store.ErrCorrupt)
	}
	for _, name := range [][]byte{bucketKeys, bucketHistory} {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("bucket %s is missing: %w", name, store.ErrCorrupt)
		}
	}
	return nil
}

// verifyPages runs bbolt's consistency check (every page reachable once,
// none both free and used, keys ordered) and reports the first problems.
func verifyPages(tx *bolt.Tx) error {
	var errs []error
	for err := range tx.Check() {
		if len(errs) < 5 {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("page check failed: %w: %w", errors.Join(errs...), store.ErrCorrupt)
	}
	return nil
}

// loadRevisions reads the revision counters and checks that they agree with
// the newest history record (compaction may have removed it if it was a
// delete at or below the compacted revision).
func (s *Store) loadRevisions(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	rev, err := readU64(meta.Get(metaRev), "rev")
	if err != nil {
		return err
	}
	compact, err := readU64(meta.Get(metaCompact), "compact")
	if err != nil {
		return err
	}
	if compact > rev || rev < 0 || compact < 0 {
		return fmt.Errorf("compacted revision %d beyond current %d: %w", compact, rev, store.ErrCorrupt)
	}
	if k, _ := tx.Bucket(bucketHistory).Cursor().Last(); k != nil {
		last, err := revOf(k)
		if err != nil {
			return err
		}
		// Compaction may delete a trailing tombstone, never a record above
		// the compacted revision.
		if last > rev || (last < rev && rev > compact) {
			return fmt.Errorf("newest history record %d, meta revision %d: %w", last, rev, store.ErrCorrupt)
		}
	}
	s.rev.Store(rev)
	s.compactRev.Store(compact)
	return nil
}
