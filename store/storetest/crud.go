package storetest

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// step is one write in a table test and what it must do.
type step struct {
	name     string
	op       string // create, update, delete
	key      string
	value    string
	expected int64 // for update/delete; -1: use the key's current ModRevision
	wantErr  error
}

func testCRUD(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	steps := []step{
		{name: "create", op: "create", key: "/a/x", value: "1"},
		{name: "create another", op: "create", key: "/a/y", value: "2"},
		{name: "create empty value", op: "create", key: "/a/empty", value: ""},
		{name: "create existing", op: "create", key: "/a/x", value: "other", wantErr: store.ErrAlreadyExists},
		{name: "update", op: "update", key: "/a/x", value: "1b", expected: -1},
		{name: "update stale", op: "update", key: "/a/x", value: "lost", expected: 1, wantErr: store.ErrConflict},
		{name: "update expected zero", op: "update", key: "/a/x", value: "lost", expected: 0, wantErr: store.ErrConflict},
		{name: "update missing", op: "update", key: "/a/none", value: "v", expected: 1, wantErr: store.ErrNotFound},
		{name: "delete stale", op: "delete", key: "/a/y", expected: 1000, wantErr: store.ErrConflict},
		{name: "delete exact", op: "delete", key: "/a/y", expected: -1},
		{name: "delete missing", op: "delete", key: "/a/y", wantErr: store.ErrNotFound},
		{name: "delete any", op: "delete", key: "/a/empty", expected: 0},
		{name: "recreate", op: "create", key: "/a/y", value: "3"},
	}
	model := map[string]store.KV{}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before := revision(t, s)
			old, existed := model[st.key]
			expected := st.expected
			if expected == -1 {
				expected = old.ModRevision
			}
			var rev int64
			var prev store.KV
			var err error
			switch st.op {
			case "create":
				rev, err = s.Create(ctx, st.key, []byte(st.value))
			case "update":
				rev, err = s.Update(ctx, st.key, []byte(st.value), expected)
			case "delete":
				prev, rev, err = s.Delete(ctx, st.key, expected)
			}
			if st.wantErr != nil {
				require.ErrorIs(t, err, st.wantErr)
				assert.Equal(t, before, revision(t, s), "a failed write must not take a revision")
			} else {
				require.NoError(t, err)
				require.Equal(t, before+1, rev, "every write takes the next revision")
				assert.Equal(t, rev, revision(t, s))
				switch st.op {
				case "create":
					model[st.key] = store.KV{Key: st.key, Value: []byte(st.value), CreateRevision: rev, ModRevision: rev}
				case "update":
					model[st.key] = store.KV{Key: st.key, Value: []byte(st.value), CreateRevision: old.CreateRevision, ModRevision: rev}
				case "delete":
					require.True(t, existed)
					assertKV(t, old, prev)
					delete(model, st.key)
				}
			}
			got, err := s.Get(ctx, st.key)
			if want, ok := model[st.key]; ok {
				require.NoError(t, err)
				assertKV(t, want, got)
			} else {
				require.ErrorIs(t, err, store.ErrNotFound)
			}
		})
	}
	t.Run("values are copied", func(t *testing.T) {
		v := []byte("original")
		_, err := s.Create(ctx, "/copy/k", v)
		require.NoError(t, err)
		copy(v, "XXXXXXXX")
		got, err := s.Get(ctx, "/copy/k")
		require.NoError(t, err)
		assert.Equal(t, "original", string(got.Value))
		got.Value[0] = 'Y'
		again, err := s.Get(ctx, "/copy/k")
		require.NoError(t, err)
		assert.Equal(t, "original", string(again.Value))
	})
}

// assertKV compares KVs treating nil and empty values as equal.
func assertKV(t *testing.T, want, got store.KV) {
	t.Helper()
	assert.Equal(t, want.Key, got.Key)
	assert.Equal(t, string(want.Value), string(got.Value), "value of %s", want.Key)
	assert.Equal(t, want.CreateRevision, got.CreateRevision, "create revision of %s", want.Key)
	assert.Equal(t, want.ModRevision, got.ModRevision, "mod revision of %s", want.Key)
}

func testBadInput(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	rev, err := s.Create(ctx, "/keep/k", []byte("kept"))
	require.NoError(t, err)
	badKeys := map[string]string{
		"empty":          "",
		"relative":       "keep/k",
		"dot segment":    "/keep/./k",
		"dotdot segment": "/keep/../k",
		"dotdot at end":  "/keep/..",
		"lone dot":       "/.",
		"empty segment":  "/keep//k",
		"trailing slash": "/keep/",
		"NUL":            "/keep/k\x00",
		"too long":       "/" + strings.Repeat("k", store.MaxKeySize),
	}
	for name, k := range badKeys {
		t.Run("key "+name, func(t *testing.T) {
			_, err := s.Create(ctx, k, []byte("v"))
			assert.ErrorIs(t, err, store.ErrInvalidKey, "create")
			_, err = s.Update(ctx, k, []byte("v"), rev)
			assert.ErrorIs(t, err, store.ErrInvalidKey, "update")
			_, _, err = s.Delete(ctx, k, 0)
			assert.ErrorIs(t, err, store.ErrInvalidKey, "delete")
			_, err = s.Get(ctx, k)
			assert.ErrorIs(t, err, store.ErrInvalidKey, "get")
		})
	}
	for name, p := range map[string]string{"relative": "keep", "NUL": "/ke\x00"} {
		t.Run("prefix "+name, func(t *testing.T) {
			_, err := s.List(ctx, p, store.ListOptions{})
			assert.ErrorIs(t, err, store.ErrInvalidKey, "list")
			_, err = s.Watch(ctx, p, 0)
			assert.ErrorIs(t, err, store.ErrInvalidKey, "watch")
		})
	}
	t.Run("value too large", func(t *testing.T) {
		big := make([]byte, store.MaxValueSize+1)
		_, err := s.Create(ctx, "/keep/big", big)
		assert.ErrorIs(t, err, store.ErrTooLarge)
		_, err = s.Update(ctx, "/keep/k", big, rev)
		assert.ErrorIs(t, err, store.ErrTooLarge)
	})
	t.Run("largest value", func(t *testing.T) {
		max := make([]byte, store.MaxValueSize)
		r, err := s.Create(ctx, "/max/k", max)
		require.NoError(t, err)
		got, err := s.Get(ctx, "/max/k")
		require.NoError(t, err)
		assert.Len(t, got.Value, store.MaxValueSize)
		_, _, err = s.Delete(ctx, "/max/k", r)
		require.NoError(t, err)
	})
	t.Run("nothing written, nothing lost", func(t *testing.T) {
		kvs, _, err := listAll(ctx, s, "/keep/", 0, 0)
		require.NoError(t, err)
		require.Len(t, kvs, 1)
		assertKV(t, store.KV{Key: "/keep/k", Value: []byte("kept"), CreateRevision: rev, ModRevision: rev}, kvs[0])
		assert.Equal(t, rev+2, revision(t, s), "only the largest-value create and delete took revisions")
	})
}

// testConcurrentCAS has goroutines increment one counter with
// read-modify-write loops: every increment must land exactly once.
func testConcurrentCAS(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	const workers, increments = 8, 15
	created, err := s.Create(ctx, "/cas/counter", []byte("0"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for i := 0; i < increments; {
				kv, err := s.Get(ctx, "/cas/counter")
				if err != nil {
					errs <- err
					return
				}
				n, _ := strconv.Atoi(string(kv.Value))
				_, err = s.Update(ctx, "/cas/counter", []byte(strconv.Itoa(n+1)), kv.ModRevision)
				switch {
				case errors.Is(err, store.ErrConflict):
				case err != nil:
					errs <- err
					return
				default:
					i++
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	kv, err := s.Get(ctx, "/cas/counter")
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(workers*increments), string(kv.Value))
	// One revision per successful write, none for a refused one (the
	// contract does not say where a new store's revisions start).
	assert.Equal(t, created+int64(workers*increments), kv.ModRevision)
}

func testClose(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	_, err := s.Create(ctx, "/c/k", []byte("v"))
	require.NoError(t, err)
	ch, err := s.Watch(ctx, "/c/", 0)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	// The watch ends: maybe a final ErrClosed event, then a closed channel.
	for ev := range ch {
		require.ErrorIs(t, ev.Err, store.ErrClosed)
	}
	_, err = s.Get(ctx, "/c/k")
	assert.ErrorIs(t, err, store.ErrClosed)
	_, err = s.Create(ctx, "/c/k2", nil)
	assert.ErrorIs(t, err, store.ErrClosed)
	_, err = s.List(ctx, "/c/", store.ListOptions{})
	assert.ErrorIs(t, err, store.ErrClosed)
	_, err = s.Watch(ctx, "/c/", 0)
	assert.ErrorIs(t, err, store.ErrClosed)
	_, err = s.Revision(ctx)
	assert.ErrorIs(t, err, store.ErrClosed)
}
