package bbolt_test

import (
	"context"
	"errors"
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
