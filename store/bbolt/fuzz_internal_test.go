package bbolt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// FuzzDecodeRecord: the history and current-record parsers never panic and
// reject what they cannot parse with ErrCorrupt; what parses re-encodes to
// the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(record{typ: recPut, createRev: 3, prevModRev: 2, key: []byte("/a"), value: []byte("v")}))
	f.Add(encodeRecord(record{typ: recDelete, createRev: 1, prevModRev: 1, key: []byte("/a/b")}))
	f.Add([]byte{})
	f.Add([]byte{9, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := decodeRecord(7, b); err != nil {
			require.ErrorIs(t, err, store.ErrCorrupt)
		} else {
			require.Equal(t, b, encodeRecord(r))
		}
		if c, err := decodeCurrent([]byte("/k"), b); err != nil {
			require.ErrorIs(t, err, store.ErrCorrupt)
		} else {
			require.Equal(t, b, encodeCurrent(c.createRev, c.modRev, c.value))
		}
	})
}

// FuzzOpenFile: Open on arbitrary file contents (seeded with a real store
// file, so mutations mostly damage pages behind a valid header) never
// panics; it fails with ErrCorrupt or serves reads that fail only with
// ErrCorrupt.
func FuzzOpenFile(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "seed.db")
	s, err := Open(seed, nil)
	require.NoError(f, err)
	for _, k := range []string{"/a", "/b/c", "/b/d"} {
		_, err := s.Create(context.Background(), k, []byte("value of "+k))
		require.NoError(f, err)
	}
	require.NoError(f, s.Close())
	b, err := os.ReadFile(seed)
	require.NoError(f, err)
	file, err := os.Open(seed)
	require.NoError(f, err)
	h, err := readMetas(file, int64(len(b)))
	require.NoError(f, err)
	require.NoError(f, file.Close())
	meta, valid := h.best()
	require.Equal(f, 2, valid)
	f.Add(b[:meta.pgid*uint64(meta.pageSize)]) // without bbolt's preallocated tail
	f.Add([]byte("not a database"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.db")
		require.NoError(t, os.WriteFile(path, data, 0o600))
		s, err := Open(path, &Config{SkipVerify: len(data)%2 == 0})
		if err != nil {
			if len(data) > 0 && !errors.Is(err, store.ErrCorrupt) {
				t.Logf("non-corrupt error: %v", err)
			}
			return
		}
		defer s.Close()
		res, err := s.List(context.Background(), "", store.ListOptions{})
		if err != nil {
			require.ErrorIs(t, err, store.ErrCorrupt)
			return
		}
		for _, kv := range res.KVs {
			if _, err := s.Get(context.Background(), kv.Key); err != nil && !errors.Is(err, store.ErrInvalidKey) {
				require.ErrorIs(t, err, store.ErrCorrupt)
			}
		}
	})
}
