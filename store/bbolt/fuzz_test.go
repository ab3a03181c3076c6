package bbolt_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// FuzzKey: no key makes the store panic; an accepted key round-trips
// through Create and Get (then Delete), a rejected one fails every call
// with ErrInvalidKey and writes nothing.
func FuzzKey(f *testing.F) {
	for _, k := range []string{"/a", "/a/b", "", "/", "/..", "/a/./b", "/a\x00", "/a//b", "/ü/\xff"} {
		f.Add(k, []byte("v"))
	}
	s := openTemp(f, nil)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, key string, value []byte) {
		before, err := s.Revision(ctx)
		require.NoError(t, err)
		rev, err := s.Create(ctx, key, value)
		if store.ValidateKey(key) != nil {
			require.ErrorIs(t, err, store.ErrInvalidKey)
			_, err = s.Get(ctx, key)
			require.ErrorIs(t, err, store.ErrInvalidKey)
			after, rerr := s.Revision(ctx)
			require.NoError(t, rerr)
			require.Equal(t, before, after, "nothing written")
			return
		}
		if errors.Is(err, store.ErrTooLarge) {
			return
		}
		require.NoError(t, err)
		kv, err := s.Get(ctx, key)
		require.NoError(t, err)
		require.Equal(t, key, kv.Key)
		require.Equal(t, string(value), string(kv.Value))
		require.Equal(t, rev, kv.ModRevision)
		res, err := s.List(ctx, key, store.ListOptions{Limit: 1})
		require.NoError(t, err)
		require.Equal(t, key, res.KVs[0].Key, "a key lists under itself first")
		_, _, err = s.Delete(ctx, key, rev)
		require.NoError(t, err)
	})
}

// FuzzListOptions: no combination of prefix, limit, revision and continue
// token makes List panic; every failure is one of the documented errors,
// and a page never holds more than the limit or a key outside the prefix.
func FuzzListOptions(f *testing.F) {
	s := openTemp(f, nil)
	ctx := context.Background()
	for _, k := range []string{"/a/1", "/a/2", "/a/3", "/b/1", "/ab/1"} {
		_, err := s.Create(ctx, k, []byte(k))
		require.NoError(f, err)
	}
	_, _, err := s.Delete(ctx, "/a/2", 0)
	require.NoError(f, err)
	tok := store.ContinueToken{Revision: 3, After: "/a/1"}.Encode()
	f.Add("/a/", 1, int64(0), "")
	f.Add("/a/", 2, int64(3), tok)
	f.Add("", -5, int64(-1), "garbage")
	f.Add("/", 0, int64(99), "")
	f.Fuzz(func(t *testing.T, prefix string, limit int, rev int64, cont string) {
		res, err := s.List(ctx, prefix, store.ListOptions{Limit: limit, Revision: rev, Continue: cont})
		if err != nil {
			known := []error{store.ErrInvalidKey, store.ErrInvalidContinue, store.ErrTooOld, store.ErrFutureRevision}
			for _, e := range known {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("undocumented error: %v", err)
		}
		if limit > 0 {
			require.LessOrEqual(t, len(res.KVs), limit)
		}
		for _, kv := range res.KVs {
			require.True(t, strings.HasPrefix(kv.Key, prefix))
		}
	})
}
