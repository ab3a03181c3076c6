package storetest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

func testList(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	for _, k := range []string{"/l/c", "/l/a", "/l/b/x", "/la/z", "/k/a", "/l/b"} {
		_, err := s.Create(ctx, k, []byte("v"+k))
		require.NoError(t, err)
	}
	cur := revision(t, s)
	tests := []struct {
		name   string
		prefix string
		opts   store.ListOptions
		want   []string
		err    error
	}{
		{name: "directory", prefix: "/l/", want: []string{"/l/a", "/l/b", "/l/b/x", "/l/c"}},
		{name: "byte prefix", prefix: "/l", want: []string{"/l/a", "/l/b", "/l/b/x", "/l/c", "/la/z"}},
		{name: "everything", prefix: "", want: []string{"/k/a", "/l/a", "/l/b", "/l/b/x", "/l/c", "/la/z"}},
		{name: "one key", prefix: "/k/a", want: []string{"/k/a"}},
		{name: "nothing", prefix: "/none/"},
		{name: "limit", prefix: "/l/", opts: store.ListOptions{Limit: 2}, want: []string{"/l/a", "/l/b"}},
		{name: "huge limit", prefix: "/l/", opts: store.ListOptions{Limit: math.MaxInt}, want: []string{"/l/a", "/l/b", "/l/b/x", "/l/c"}},
		{name: "negative limit means none", prefix: "/l/", opts: store.ListOptions{Limit: -1}, want: []string{"/l/a", "/l/b", "/l/b/x", "/l/c"}},
		{name: "explicit current revision", prefix: "/k/", opts: store.ListOptions{Revision: cur}, want: []string{"/k/a"}},
		{name: "future revision", prefix: "/l/", opts: store.ListOptions{Revision: cur + 1}, err: store.ErrFutureRevision},
		{name: "garbage token", prefix: "/l/", opts: store.ListOptions{Continue: "%%%not a token"}, err: store.ErrInvalidContinue},
		{name: "token of base64 noise", prefix: "/l/", opts: store.ListOptions{Continue: "AAAAAAAA"}, err: store.ErrInvalidContinue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.List(ctx, tt.prefix, tt.opts)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, cur, res.Revision)
			var keys []string
			for _, kv := range res.KVs {
				keys = append(keys, kv.Key)
				assert.Equal(t, "v"+kv.Key, string(kv.Value))
			}
			assert.Equal(t, tt.want, keys)
		})
	}
}

func testPagination(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	const n = 23
	revs := map[string]int64{}
	for i := range n {
		k := key("/p/%03d", i)
		rev, err := s.Create(ctx, k, []byte(k))
		require.NoError(t, err)
		revs[k] = rev
	}
	_, err := s.Create(ctx, "/q/outside", nil)
	require.NoError(t, err)

	first, err := s.List(ctx, "/p/", store.ListOptions{Limit: 5})
	require.NoError(t, err)
	require.Len(t, first.KVs, 5)
	assert.Equal(t, int64(n-5), first.Remaining)
	require.NotEmpty(t, first.Continue)

	// Writes between pages must not show in later pages.
	_, err = s.Update(ctx, "/p/010", []byte("changed"), revs["/p/010"])
	require.NoError(t, err)
	_, _, err = s.Delete(ctx, "/p/015", 0)
	require.NoError(t, err)
	_, err = s.Create(ctx, "/p/0105", []byte("new"))
	require.NoError(t, err)

	t.Run("bad continuations", func(t *testing.T) {
		_, err := s.List(ctx, "/q/", store.ListOptions{Continue: first.Continue})
		assert.ErrorIs(t, err, store.ErrInvalidContinue, "token from another prefix")
		_, err = s.List(ctx, "/p/", store.ListOptions{Continue: first.Continue, Revision: first.Revision + 1})
		assert.ErrorIs(t, err, store.ErrInvalidContinue, "token and revision disagree")
		_, err = s.List(ctx, "/p/", store.ListOptions{Continue: first.Continue[:len(first.Continue)-1] + "!"})
		assert.ErrorIs(t, err, store.ErrInvalidContinue, "damaged token")
	})

	all := append([]store.KV(nil), first.KVs...)
	tok, pages := first.Continue, 1
	for tok != "" {
		res, err := s.List(ctx, "/p/", store.ListOptions{Continue: tok, Limit: 5})
		require.NoError(t, err)
		require.Equal(t, first.Revision, res.Revision, "continued pages read at the first page's revision")
		assert.Equal(t, int64(n)-int64(len(all)+len(res.KVs)), res.Remaining)
		all = append(all, res.KVs...)
		tok = res.Continue
		pages++
	}
	assert.Equal(t, 5, pages)
	require.Len(t, all, n)
	for i, kv := range all {
		k := key("/p/%03d", i)
		assertKV(t, store.KV{Key: k, Value: []byte(k), CreateRevision: revs[k], ModRevision: revs[k]}, kv)
	}
}

// testListPast checks List at every revision of a random history, paged
// and unpaged, against a model.
func testListPast(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	m := newModel(revision(t, s))
	rng := rand.New(rand.NewPCG(1, 2))
	randomWrites(ctx, t, s, m, rng, "/h/", 12, 150)
	_, err := s.Create(ctx, "/other/k", nil)
	require.NoError(t, err)
	for rev := m.base + 1; rev <= m.last(); rev++ {
		want := m.sorted(rev, "/h/")
		for _, limit := range []int{0, 4} {
			got, gotRev, err := listAll(ctx, s, "/h/", rev, limit)
			require.NoError(t, err, "list at %d", rev)
			require.Equal(t, rev, gotRev)
			require.Len(t, got, len(want), "list at %d limit %d", rev, limit)
			for i := range want {
				assertKV(t, want[i], got[i])
			}
		}
	}
}
