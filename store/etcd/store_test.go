package etcd_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/internal/etcdtest"
	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/etcd"
	"github.com/orkit/orkit/store/storetest"
)

// open returns a Store on a new 3-member cluster: storetest wants an empty
// store per case (one case counts revisions from 1).
func open(t *testing.T) store.Interface {
	c := etcdtest.Start(t, 3)
	return connect(t, c.Endpoints(), etcd.Config{})
}

// connect opens a Store on endpoints and closes it at cleanup.
func connect(t testing.TB, endpoints []string, cfg etcd.Config) *etcd.Store {
	t.Helper()
	cfg.Endpoints = endpoints
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := etcd.New(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// testCtx is a context that ends with the test or after d.
func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestConformance(t *testing.T) {
	storetest.Run(t, open)
}

// TestCompactorsShareCluster: two Stores on one cluster, as two API
// servers, each with a Compactor: each round exactly one of them compacts
// etcd, and etcd refuses reads below the compacted revision to both.
func TestCompactorsShareCluster(t *testing.T) {
	c := etcdtest.Start(t, 1)
	s1 := connect(t, c.Endpoints(), etcd.Config{})
	s2 := connect(t, c.Endpoints(), etcd.Config{})
	ctx := testCtx(t, time.Minute)
	var n1, n2 int
	c1 := store.NewCompactor(s1, store.CompactorConfig{OnCompact: func(int64) { n1++ }})
	c2 := store.NewCompactor(s2, store.CompactorConfig{OnCompact: func(int64) { n2++ }})
	for round := range 4 {
		_, err := s1.Create(ctx, fmt.Sprintf("/k/%d", round), []byte("v"))
		require.NoError(t, err)
		require.NoError(t, c1.Step(ctx))
		require.NoError(t, c2.Step(ctx))
	}
	require.Equal(t, 3, n1+n2, "one compaction per round after the first")
	require.Equal(t, 3, n1, "the first to take the key keeps its turn while it runs")
	for _, s := range []store.Interface{s1, s2} {
		_, err := s.List(ctx, "/k/", store.ListOptions{Revision: c1.Compacted() - 1})
		require.ErrorIs(t, err, store.ErrTooOld)
	}
}
