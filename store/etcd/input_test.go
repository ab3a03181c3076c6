package etcd_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orkit/orkit/internal/etcdtest"
	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
	"github.com/orkit/orkit/store/etcd"
)

// TestBadInputSameAsBbolt sends the same malformed, oversized and
// conflicting input to a bbolt store and to an etcd store: the errors are
// the same sentinels with the same messages, and neither store changes.
func TestBadInputSameAsBbolt(t *testing.T) {
	c := etcdtest.Start(t, 1)
	e := connect(t, c.Endpoints(), etcd.Config{})
	b, err := bbolt.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	ctx := testCtx(t, time.Minute)
	stores := map[string]store.Interface{"etcd": e, "bbolt": b}
	created := map[string]int64{}
	for name, s := range stores {
		rev, err := s.Create(ctx, "/in/k", []byte("v"))
		require.NoError(t, err)
		created[name] = rev
	}
	big := make([]byte, store.MaxValueSize+1)
	long := "/" + strings.Repeat("k", store.MaxKeySize)
	calls := []struct {
		name string
		call func(store.Interface) error
		want error
	}{
		{"create empty key", func(s store.Interface) error { _, err := s.Create(ctx, "", nil); return err }, store.ErrInvalidKey},
		{"create relative key", func(s store.Interface) error { _, err := s.Create(ctx, "in/x", nil); return err }, store.ErrInvalidKey},
		{"create dotdot", func(s store.Interface) error { _, err := s.Create(ctx, "/in/../x", nil); return err }, store.ErrInvalidKey},
		{"create NUL", func(s store.Interface) error { _, err := s.Create(ctx, "/in/\x00", nil); return err }, store.ErrInvalidKey},
		{"create long key", func(s store.Interface) error { _, err := s.Create(ctx, long, nil); return err }, store.ErrInvalidKey},
		{"create big value", func(s store.Interface) error { _, err := s.Create(ctx, "/in/big", big); return err }, store.ErrTooLarge},
		{"update big value", func(s store.Interface) error { _, err := s.Update(ctx, "/in/k", big, 1); return err }, store.ErrTooLarge},
		{"get trailing slash", func(s store.Interface) error { _, err := s.Get(ctx, "/in/"); return err }, store.ErrInvalidKey},
		{"delete empty segment", func(s store.Interface) error { _, _, err := s.Delete(ctx, "/in//k", 0); return err }, store.ErrInvalidKey},
		{"list relative prefix", func(s store.Interface) error { _, err := s.List(ctx, "in", store.ListOptions{}); return err }, store.ErrInvalidKey},
		{"watch NUL prefix", func(s store.Interface) error { _, err := s.Watch(ctx, "/\x00", 0); return err }, store.ErrInvalidKey},
		{"garbage continue", func(s store.Interface) error {
			_, err := s.List(ctx, "/in/", store.ListOptions{Continue: "%%"})
			return err
		}, store.ErrInvalidContinue},
		{"create existing", func(s store.Interface) error { _, err := s.Create(ctx, "/in/k", nil); return err }, store.ErrAlreadyExists},
		{"update missing", func(s store.Interface) error { _, err := s.Update(ctx, "/in/none", nil, 1); return err }, store.ErrNotFound},
		{"update stale", func(s store.Interface) error { _, err := s.Update(ctx, "/in/k", nil, 7); return err }, store.ErrConflict},
		{"delete stale", func(s store.Interface) error { _, _, err := s.Delete(ctx, "/in/k", 7); return err }, store.ErrConflict},
		{"get missing", func(s store.Interface) error { _, err := s.Get(ctx, "/in/none"); return err }, store.ErrNotFound},
		{"list future", func(s store.Interface) error {
			_, err := s.List(ctx, "/in/", store.ListOptions{Revision: 99})
			return err
		}, store.ErrFutureRevision},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			errs := map[string]error{}
			for name, s := range stores {
				errs[name] = tt.call(s)
				require.ErrorIs(t, errs[name], tt.want, name)
			}
			if tt.want == store.ErrInvalidKey || tt.want == store.ErrTooLarge || tt.want == store.ErrInvalidContinue {
				assert.Equal(t, errs["bbolt"].Error(), errs["etcd"].Error(), "input errors are word for word the same")
			}
		})
	}
	for name, s := range stores {
		kvs, err := s.List(ctx, "", store.ListOptions{})
		require.NoError(t, err, name)
		require.Len(t, kvs.KVs, 1, "%s: nothing written", name)
		assert.Equal(t, "v", string(kvs.KVs[0].Value), name)
		assert.Equal(t, created[name], kvs.Revision, "%s: failed writes take no revision", name)
	}
}

// TestLargestWriteWithPrefix writes the largest value under the longest
// key below a Prefix: the request fits the --max-request-bytes the store
// asks for (MinMaxRequestBytes).
func TestLargestWriteWithPrefix(t *testing.T) {
	c := etcdtest.Start(t, 1, "--max-request-bytes", "1589248") // MinMaxRequestBytes
	require.Equal(t, 1589248, etcd.MinMaxRequestBytes)
	s := connect(t, c.Endpoints(), etcd.Config{Prefix: "/" + strings.Repeat("p", 200)})
	ctx := testCtx(t, time.Minute)
	k := "/" + strings.Repeat("k", store.MaxKeySize-1)
	v := make([]byte, store.MaxValueSize)
	rev, err := s.Create(ctx, k, v)
	require.NoError(t, err)
	_, err = s.Update(ctx, k, v, rev)
	require.NoError(t, err)
	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	assert.Len(t, got.Value, store.MaxValueSize)
}

// TestEtcdLimitTooSmall: an etcd left at its default --max-request-bytes
// refuses the largest value; the store reports ErrTooLarge and says which
// flag to raise.
func TestEtcdLimitTooSmall(t *testing.T) {
	c := etcdtest.Start(t, 1, "--max-request-bytes", "1572864") // etcd's default
	s := connect(t, c.Endpoints(), etcd.Config{})
	ctx := testCtx(t, time.Minute)
	_, err := s.Create(ctx, "/big", make([]byte, store.MaxValueSize))
	require.ErrorIs(t, err, store.ErrTooLarge)
	assert.Contains(t, err.Error(), "--max-request-bytes")
	_, err = s.Get(ctx, "/big")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestConfigErrors(t *testing.T) {
	ctx := testCtx(t, time.Minute)
	for name, cfg := range map[string]etcd.Config{
		"no endpoints":          {},
		"empty endpoint":        {Endpoints: []string{""}},
		"relative prefix":       {Endpoints: []string{"http://127.0.0.1:1"}, Prefix: "tenant"},
		"prefix trailing slash": {Endpoints: []string{"http://127.0.0.1:1"}, Prefix: "/tenant/"},
		"prefix too long":       {Endpoints: []string{"http://127.0.0.1:1"}, Prefix: "/" + strings.Repeat("p", 3*store.MaxKeySize+1)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := etcd.New(ctx, cfg)
			require.ErrorIs(t, err, etcd.ErrInvalidConfig)
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		ln := etcdtest.Unused(t)
		_, err := etcd.New(ctx, etcd.Config{Endpoints: []string{"http://" + ln}, DialTimeout: 300 * time.Millisecond})
		require.Error(t, err)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

// TestPrefixes: Stores with different Prefixes on one cluster share the
// revision but not keys, and keys of other etcd users outside "/" never
// show.
func TestPrefixes(t *testing.T) {
	c := etcdtest.Start(t, 1)
	ctx := testCtx(t, time.Minute)
	a := connect(t, c.Endpoints(), etcd.Config{Prefix: "/a"})
	b := connect(t, c.Endpoints(), etcd.Config{Prefix: "/b"})
	root := connect(t, c.Endpoints(), etcd.Config{})
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints()})
	require.NoError(t, err)
	defer cli.Close()
	_, err = cli.Put(ctx, "foreign", "x") // not a store key
	require.NoError(t, err)

	wa, err := a.Watch(ctx, "", 0)
	require.NoError(t, err)
	ra, err := a.Create(ctx, "/k", []byte("a"))
	require.NoError(t, err)
	rb, err := b.Create(ctx, "/k", []byte("b"))
	require.NoError(t, err)
	assert.Equal(t, ra+1, rb, "one revision for the cluster")
	got, err := a.Get(ctx, "/k")
	require.NoError(t, err)
	assert.Equal(t, "a", string(got.Value))
	ev := <-wa
	assert.Equal(t, "/k", ev.KV.Key)
	assert.Equal(t, ra, ev.Revision)

	res, err := root.List(ctx, "", store.ListOptions{})
	require.NoError(t, err)
	var keys []string
	for _, kv := range res.KVs {
		keys = append(keys, kv.Key)
	}
	assert.Equal(t, []string{"/a/k", "/b/k"}, keys, "the etcd key \"foreign\" is not a store key")
	res, err = b.List(ctx, "", store.ListOptions{})
	require.NoError(t, err)
	require.Len(t, res.KVs, 1)
	assert.Equal(t, "b", string(res.KVs[0].Value))
	raw, err := cli.Get(ctx, "/b/k")
	require.NoError(t, err)
	require.Len(t, raw.Kvs, 1)
	assert.Equal(t, rb, raw.Kvs[0].ModRevision, "store revisions are etcd's")
}

// TestTLS connects to a cluster that serves TLS and requires client
// certificates: with the cluster's CA and a client certificate the store
// works; without them New fails.
func TestTLS(t *testing.T) {
	c := etcdtest.StartWith(t, etcdtest.Config{Members: 3, TLS: true})
	ctx := testCtx(t, time.Minute)
	s := connect(t, c.Endpoints(), etcd.Config{TLS: c.ClientTLS()})
	first, err := s.Create(ctx, "/tls/a", []byte("v"))
	require.NoError(t, err)
	second, err := s.Create(ctx, "/tls/b", []byte("v"))
	require.NoError(t, err)
	ch, err := s.Watch(ctx, "/tls/", first)
	require.NoError(t, err)
	assert.Equal(t, second, next(t, ch).Revision)

	noCert := c.ClientTLS()
	noCert.Certificates = nil
	for name, cfg := range map[string]etcd.Config{
		"no client certificate": {TLS: noCert},
		"unknown CA":            {},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.Endpoints, cfg.DialTimeout = c.Endpoints(), time.Second
			_, err := etcd.New(ctx, cfg)
			require.Error(t, err)
		})
	}
}
