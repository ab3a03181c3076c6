package bbolt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/orkit/orkit/store"
)

var _ store.Interface = (*Store)(nil)

// Store is the bbolt-backed store.Interface. It owns one database file, one
// committer goroutine (group commit, see write.go) and one goroutine per
// open watch. All methods are safe for concurrent use. Close releases the
// file; afterwards every method returns store.ErrClosed.
//
// Lock order: Store.mu, then hub.mu, then watcher.mu. The committer holds
// none of them while it runs a bbolt transaction.
type Store struct {
	db   *bolt.DB
	path string
	opts Config
	log  *slog.Logger

	// mu guards queue and closed, and orders watch registration against
	// Close (wg.Add happens under mu while closed is false).
	mu     sync.Mutex
	queue  []*op
	closed bool
	kick   chan struct{} // capacity 1: "the queue changed or Close began"

	committerDone chan struct{} // closed when the committer has exited
	closing       chan struct{} // closed by Close after the committer ends
	watchers      sync.WaitGroup
	closeOnce     sync.Once
	closeErr      error

	commits         atomic.Int64 // write transactions committed
	committedWrites atomic.Int64 // ops those transactions carried

	rev        atomic.Int64 // last committed revision
	compactRev atomic.Int64 // compacted revision (history below it is gone)
	compactMu  sync.Mutex   // serialises Compact calls

	hub *hub
}

// Open opens the store at path, creating the file if it does not exist.
// opts may be nil for defaults. The file is locked for the Store's lifetime;
// ErrLocked, naming the holder, if it stays locked for Config.LockTimeout.
//
// A file that is damaged (truncated, bad header, unreadable pages, broken
// records) or that is a bbolt file of another program fails with an error
// wrapping store.ErrCorrupt; Open never panics on bad files and does not
// modify a file it refuses. One invalid meta page out of two is what a
// crash during a commit (or a damaged page) leaves behind: bbolt serves the
// valid page's transaction, so the transaction after it is lost if it had
// committed. Open rewrites the invalid page from the valid one, logs a
// warning naming the damaged page, the lost transaction and the revision
// the store went back to, and goes on. An unfinished compaction is
// completed before Open returns.
func Open(path string, opts *Config) (*Store, error) {
	o := opts.withDefaults()
	torn, err := checkFile(path)
	if err != nil {
		return nil, err
	}
	db, err := openBolt(path, o)
	if err != nil {
		return nil, err
	}
	if torn != nil {
		// An empty commit rewrites the damaged meta page from the good one,
		// as the next write would; the page check below needs both valid.
		err := guard(path, func() error { return db.Update(func(*bolt.Tx) error { return nil }) })
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("repair torn meta page of %s: %w", path, err)
		}
	}
	s := &Store{
		db:            db,
		path:          path,
		opts:          o,
		log:           o.Logger.With("store", path),
		kick:          make(chan struct{}, 1),
		committerDone: make(chan struct{}),
		closing:       make(chan struct{}),
	}
	if err := s.load(); err != nil {
		_ = db.Close()
		return nil, err
	}
	if torn != nil {
		s.warnTorn(torn)
	}
	if err := s.finishCompaction(context.Background()); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("resume compaction of %s: %w", path, err)
	}
	s.hub = newHub(s.rev.Load())
	go s.commitLoop()
	s.log.Info("store opened", "revision", s.rev.Load(), "compacted", s.compactRev.Load())
	return s, nil
}

// warnTorn logs, at warning level, that one meta page was invalid: bbolt
// went back to the other page's transaction, so the transaction after it
// is lost if it had committed (a crash during its commit, or a damaged
// page); the store's revision is that of the valid page.
func (s *Store) warnTorn(t *tornMeta) {
	s.log.Warn(fmt.Sprintf("bbolt meta page %d is invalid (a crash during a commit, or a damaged file): "+
		"opened from meta page %d at transaction %d and rewrote page %d; "+
		"transaction %d, if it had committed, is lost with every write after revision %d",
		t.bad, t.good, t.txid, t.bad, t.txid+1, s.rev.Load()),
		"damaged_page", t.bad, "transaction", t.txid, "lost_transaction", t.txid+1, "revision", s.rev.Load())
}

// openBolt opens the bbolt file (see openBoltOnce), again if the file was
// replaced while it waited for the lock (Defragment renames a new file
// over path while it holds the old one's lock): a lock on a file no longer
// at path would protect nothing.
func openBolt(path string, o Config) (*bolt.DB, error) {
	for attempt := 0; ; attempt++ {
		db, file, err := openBoltOnce(path, o)
		if err != nil {
			return nil, err
		}
		if isAtPath(file, path) {
			return db, nil
		}
		_ = db.Close()
		if attempt == 3 {
			return nil, fmt.Errorf("open %s: the file was replaced while waiting for its lock, %d times", path, attempt+1)
		}
	}
}

// isAtPath reports whether f is still the file at path.
func isAtPath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// openBoltOnce opens the bbolt file with a guard: bbolt may panic or fault on
// pages that passed the header check but are still damaged. If it does,
// the file bbolt opened is closed here, which also releases its lock.
func openBoltOnce(path string, o Config) (db *bolt.DB, file *os.File, err error) {
	err = guard(path, func() error {
		var err error
		db, err = bolt.Open(path, o.FileMode, &bolt.Options{
			Timeout:         o.LockTimeout,
			InitialMmapSize: o.InitialMmapSize,
			FreelistType:    bolt.FreelistMapType,
			// As etcd: the freelist is rebuilt from the pages on open
			// instead of written at every commit (after compaction it
			// is tens of pages, rewritten by every commit, and needs
			// a contiguous run of free pages each time). checkFile
			// walks the pages first (walkPages), since bbolt's own walk
			// panics on damage in a goroutine no recover reaches.
			NoFreelistSync: true,
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				f, err := os.OpenFile(name, flag, perm)
				file = f
				return f, err
			},
		})
		return err
	})
	switch {
	case errors.Is(err, store.ErrCorrupt): // from guard, already names path
		if file != nil {
			_ = file.Close()
		}
		return nil, nil, err
	case errors.Is(err, berrors.ErrTimeout):
		if holder := lockHolder(path); holder != "" {
			return nil, nil, fmt.Errorf("open %s: held by %s; waited %s: %w", path, holder, o.LockTimeout, ErrLocked)
		}
		return nil, nil, fmt.Errorf("open %s: waited %s: %w", path, o.LockTimeout, ErrLocked)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
		return nil, nil, fmt.Errorf("open %s: %w: %w", path, err, store.ErrCorrupt)
	case err != nil:
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, file, nil
}

// guard runs fn, turning a panic or a memory fault (a read past the end of
// a damaged mapping) into an error wrapping store.ErrCorrupt.
func guard(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: bbolt failed on damaged data: %v: %w", path, r, store.ErrCorrupt)
		}
	}()
	return fn()
}

// view runs fn in a read transaction under guard, mapping a closed
// database to store.ErrClosed.
func (s *Store) view(fn func(tx *bolt.Tx) error) error {
	err := guard(s.path, func() error { return s.db.View(fn) })
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return store.ErrClosed
	}
	return err
}

// isClosed reports whether Close has begun.
func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Get returns the current value of key: store.ErrInvalidKey for a malformed
// key, store.ErrNotFound when absent. The returned value is a copy the
// caller owns.
func (s *Store) Get(ctx context.Context, key string) (store.KV, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.KV{}, err
	}
	if err := ctx.Err(); err != nil {
		return store.KV{}, err
	}
	if s.isClosed() {
		return store.KV{}, store.ErrClosed
	}
	var kv store.KV
	err := s.view(func(tx *bolt.Tx) error {
		k := []byte(key)
		raw := tx.Bucket(bucketKeys).Get(k)
		if raw == nil {
			return fmt.Errorf("get %q: %w", key, store.ErrNotFound)
		}
		cur, err := decodeCurrent(k, raw)
		if err != nil {
			return err
		}
		kv = store.KV{Key: key, Value: clone(cur.value), CreateRevision: cur.createRev, ModRevision: cur.modRev}
		return nil
	})
	return kv, err
}

// Revision returns the last committed revision (0 for an empty store).
func (s *Store) Revision(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if s.isClosed() {
		return 0, store.ErrClosed
	}
	return s.rev.Load(), nil
}

// Close stops accepting work, commits the writes already queued, ends every
// watch (each gets a final Event with store.ErrClosed when its consumer has
// room for it; its channel is closed either way), waits for the watch
// goroutines and closes the file. Close is idempotent; later calls return
// the first call's result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		select {
		case s.kick <- struct{}{}:
		default:
		}
		<-s.committerDone
		close(s.closing)
		s.hub.close()
		s.watchers.Wait()
		s.closeErr = s.db.Close()
		s.log.Info("store closed", "revision", s.rev.Load())
	})
	return s.closeErr
}
