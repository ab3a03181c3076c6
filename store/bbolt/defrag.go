package bbolt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// defragTxSize is how many bytes bbolt's Compact copies per transaction
// into the new file.
const defragTxSize = 64 << 20

// DefragResult reports what Defragment did.
type DefragResult struct {
	// Before and After are the file's sizes in bytes.
	Before, After int64
}

// Defragment gives the space that compaction freed back to the file
// system. Compaction (Store.Compact) frees pages inside the file, which
// later writes reuse, so the file stops growing under steady churn, but it
// never shrinks. Defragment copies everything live into a fresh file, in
// key order into full pages (the history Compact left too, so nothing a
// reader could see changes), syncs it, and renames it over path.
//
// It is an offline operation: it opens path itself and so fails with
// ErrLocked (after opts.LockTimeout) while a Store, in any process, has
// it open. opts may be nil; it is used to open path (a damaged file is
// refused with store.ErrCorrupt and left alone). On any error path is
// unchanged; a leftover path+".defrag" from an interrupted run is removed.
// A Store that was waiting for the lock meanwhile opens the new file.
func Defragment(path string, opts *Config) (DefragResult, error) {
	var res DefragResult
	tmp := path + ".defrag"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("defragment %s: remove leftover %s: %w", path, tmp, err)
	}
	s, err := Open(path, opts)
	if err != nil {
		return res, fmt.Errorf("defragment: %w", err)
	}
	defer func() { _ = s.Close() }()
	info, err := os.Stat(path)
	if err != nil {
		return res, fmt.Errorf("defragment %s: %w", path, err)
	}
	res.Before = info.Size()
	if err := copyInto(tmp, s.db, info.Mode().Perm()); err != nil {
		_ = os.Remove(tmp)
		return res, fmt.Errorf("defragment %s: %w", path, err)
	}
	// Renamed while the old file's lock is held: a Store waiting for it
	// sees the file replaced and opens the new one (openBolt).
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return res, fmt.Errorf("defragment %s: replace the file: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return res, fmt.Errorf("defragment %s: %w", path, err)
	}
	if info, err = os.Stat(path); err != nil {
		return res, fmt.Errorf("defragment %s: %w", path, err)
	}
	res.After = info.Size()
	s.log.Info("store defragmented", "before", res.Before, "after", res.After)
	return res, nil
}

// copyInto writes a compacted copy of src into a new bbolt file at dst
// and syncs it. It copies each bucket (orkit's are flat) in key order into
// full pages (bbolt's own Compact leaves them half full), committing
// every defragTxSize bytes.
func copyInto(dst string, src *bolt.DB, mode os.FileMode) error {
	db, err := bolt.Open(dst, mode, &bolt.Options{NoSync: true, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return fmt.Errorf("create %s: %w", dst, err)
	}
	err = src.View(func(stx *bolt.Tx) error {
		return stx.ForEach(func(name []byte, b *bolt.Bucket) error { return copyBucket(db, name, b) })
	})
	if err == nil {
		err = db.Sync()
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy into %s: %w", dst, err)
	}
	return nil
}

// copyBucket copies bucket src into a new bucket name of db, in
// transactions of about defragTxSize bytes.
func copyBucket(db *bolt.DB, name []byte, src *bolt.Bucket) error {
	tx, err := db.Begin(true)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	dst, err := tx.CreateBucket(name)
	if err != nil {
		return err
	}
	if err := dst.SetSequence(src.Sequence()); err != nil {
		return err
	}
	size := 0
	c := src.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			return fmt.Errorf("bucket %s holds a nested bucket %q: not an orkit store", name, k)
		}
		if size += len(k) + len(v); size > defragTxSize {
			if err := tx.Commit(); err != nil {
				return err
			}
			if tx, err = db.Begin(true); err != nil {
				return err
			}
			dst, size = tx.Bucket(name), len(k)+len(v)
		}
		dst.FillPercent = 1.0 // written in key order: pack pages full
		if err := dst.Put(k, v); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
