package bbolt_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
)

// populated writes n keys into a new store file and returns its path.
func populated(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := bbolt.Open(path, nil)
	require.NoError(t, err)
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := range 32 { // concurrent writers share commits: fast setup
		wg.Go(func() {
			for i := w; i < n; i += 32 {
				if _, err := s.Create(ctx, fmt.Sprintf("/pop/%05d", i), make([]byte, 200)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
	require.NoError(t, s.Close())
	return path
}

// copyFile copies src into a new temporary file and returns its path.
func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), "copy.db")
	require.NoError(t, os.WriteFile(dst, b, 0o600))
	return dst
}

func TestOpenRejectsDamagedFiles(t *testing.T) {
	good := populated(t, 3000)
	used := usedBytes(t, good)
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"truncated to half", func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, used/2)) }},
		{"truncated inside the header", func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, 1500)) }},
		{"one byte", func(t *testing.T, p string) { require.NoError(t, os.Truncate(p, 1)) }},
		{"random bytes", func(t *testing.T, p string) {
			b := make([]byte, 64<<10)
			for i := range b {
				b[i] = byte(rand.IntN(256))
			}
			require.NoError(t, os.WriteFile(p, b, 0o600))
		}},
		{"text file", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte("just some text, not a database\n"), 0o600))
		}},
		{"both meta pages zeroed", func(t *testing.T, p string) { overwrite(t, p, 0, make([]byte, 8192)) }},
		{"freelist count garbage", func(t *testing.T, p string) {
			syncFreelist(t, p) // files of older orkits store their freelist
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			for off := 2 * 4096; off+4096 <= int(used); off += 4096 {
				if binary.LittleEndian.Uint16(b[off+8:]) == 0x10 { // a freelist page
					binary.LittleEndian.PutUint16(b[off+10:], 0xFFFF)
					binary.LittleEndian.PutUint64(b[off+16:], 1<<40)
				}
			}
			require.NoError(t, os.WriteFile(p, b, 0o600))
		}},
		{"root pages garbage", func(t *testing.T, p string) { overwriteRandom(t, p, 2*4096, used-2*4096) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := copyFile(t, good)
			tt.damage(t, path)
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			_, err = bbolt.Open(path, &bbolt.Config{LockTimeout: time.Second})
			require.ErrorIs(t, err, store.ErrCorrupt)
			t.Log(err)
			_, err = bbolt.Open(path, &bbolt.Config{LockTimeout: time.Second})
			require.ErrorIs(t, err, store.ErrCorrupt, "a refused file is not left locked")
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "a damaged file is never modified")
		})
	}
}

// TestDamagedPagesNeverPanic damages one data page at a time; Open must
// either refuse the file with ErrCorrupt or serve it, and reads of a file
// opened without verification must fail with ErrCorrupt rather than panic.
func TestDamagedPagesNeverPanic(t *testing.T) {
	good := populated(t, 1500)
	used := usedBytes(t, good)
	require.NoError(t, os.Truncate(good, used)) // drop bbolt's preallocation
	rng := rand.New(rand.NewPCG(1, 1))
	pages := rng.Perm(int(used/4096) - 2)[:min(40, int(used/4096)-2)]
	opened, refused := 0, 0
	for _, pg := range pages {
		for _, skip := range []bool{false, true} {
			path := copyFile(t, good)
			overwriteRandomWith(t, rng, path, int64(pg+2)*4096, 4096)
			s, err := bbolt.Open(path, &bbolt.Config{LockTimeout: time.Second, SkipVerify: skip})
			if err != nil {
				require.ErrorIs(t, err, store.ErrCorrupt, "page %d", pg+2)
				_, err = bbolt.Open(path, &bbolt.Config{LockTimeout: time.Second, SkipVerify: skip})
				require.ErrorIs(t, err, store.ErrCorrupt, "page %d: a refused file is not left locked", pg+2)
				refused++
				continue
			}
			opened++
			readEverything(t, s)
			_ = s.Close()
		}
	}
	t.Logf("damaged %d pages: %d opens refused, %d served", len(pages), refused, opened)
}

// syncFreelist rewrites path's meta page with a stored freelist, as files
// written before orkit stopped storing it (NoFreelistSync) have.
func syncFreelist(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: false})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(*bolt.Tx) error { return nil }))
	require.NoError(t, db.Close())
}

// usedBytes returns the bytes of path's pages in use (bbolt's Tx.Size).
func usedBytes(t *testing.T, path string) int64 {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	var n int64
	require.NoError(t, db.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil }))
	return n
}

// readEverything lists and gets every key, accepting only success or
// ErrCorrupt.
func readEverything(t *testing.T, s *bbolt.Store) {
	t.Helper()
	ctx := context.Background()
	res, err := s.List(ctx, "/", store.ListOptions{})
	if err != nil {
		require.ErrorIs(t, err, store.ErrCorrupt)
		return
	}
	for _, kv := range res.KVs {
		if _, err := s.Get(ctx, kv.Key); err != nil && !errors.Is(err, store.ErrNotFound) {
			require.ErrorIs(t, err, store.ErrCorrupt)
		}
	}
}

func TestOpenRejectsForeignFiles(t *testing.T) {
	t.Run("bbolt file of another program", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "foreign.db")
		db, err := bolt.Open(path, 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket([]byte("settings"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte("v"))
		}))
		require.NoError(t, db.Close())
		_, err = bbolt.Open(path, nil)
		require.ErrorIs(t, err, store.ErrCorrupt)
		assert.ErrorContains(t, err, "another program")
	})
	for name, edit := range map[string]func(b *bolt.Bucket) error{
		"wrong magic":   func(b *bolt.Bucket) error { return b.Put([]byte("magic"), []byte("someone-else")) },
		"newer version": func(b *bolt.Bucket) error { return b.Put([]byte("version"), []byte{0, 0, 0, 0, 0, 0, 0, 9}) },
		"bad revision":  func(b *bolt.Bucket) error { return b.Put([]byte("rev"), []byte{1, 2, 3}) },
	} {
		t.Run(name, func(t *testing.T) {
			path := populated(t, 3)
			db, err := bolt.Open(path, 0o600, nil)
			require.NoError(t, err)
			require.NoError(t, db.Update(func(tx *bolt.Tx) error { return edit(tx.Bucket([]byte("orkit.meta"))) }))
			require.NoError(t, db.Close())
			_, err = bbolt.Open(path, nil)
			require.ErrorIs(t, err, store.ErrCorrupt)
			t.Log(err)
		})
	}
	t.Run("directory", func(t *testing.T) {
		_, err := bbolt.Open(t.TempDir(), nil)
		require.Error(t, err)
	})
}

func TestOneMetaPageDamagedStillOpens(t *testing.T) {
	path := populated(t, 100)
	overwrite(t, path, 0, make([]byte, 4096)) // bbolt falls back to meta page 1
	s, err := bbolt.Open(path, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	rev, err := s.Revision(context.Background())
	require.NoError(t, err)
	assert.Positive(t, rev, "at most the last transaction is lost")
	res, err := s.List(context.Background(), "/pop/", store.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, res.KVs, int(rev), "one create per revision: the state is that of one commit")
	_, err = s.Create(context.Background(), "/pop/after", nil)
	require.NoError(t, err)
}

func TestOpenIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := bbolt.Open(path, nil)
	require.NoError(t, err)
	_, err = bbolt.Open(path, &bbolt.Config{LockTimeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, bbolt.ErrLocked)
	require.NoError(t, s.Close())
	s, err = bbolt.Open(path, nil)
	require.NoError(t, err, "the lock is released by Close")
	require.NoError(t, s.Close())
}

func overwrite(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func overwriteRandom(t *testing.T, path string, off, n int64) {
	overwriteRandomWith(t, rand.New(rand.NewPCG(7, 7)), path, off, n)
}

func overwriteRandomWith(t *testing.T, rng *rand.Rand, path string, off, n int64) {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	overwrite(t, path, off, b)
}
