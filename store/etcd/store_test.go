package etcd_test

import (
	"context"
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
