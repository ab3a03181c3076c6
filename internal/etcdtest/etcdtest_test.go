package etcdtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orkit/orkit/internal/etcdtest"
)

// TestClusterKillRestart starts three members, kills the leader while a
// write goes through the others, restarts it and waits for it to catch up.
func TestClusterKillRestart(t *testing.T) {
	c := etcdtest.Start(t, 3)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer cli.Close()
	_, err = cli.Put(ctx, "/before", "1")
	require.NoError(t, err)

	leader, err := c.Leader(ctx)
	require.NoError(t, err)
	m := c.Members()[leader]
	pid := m.PID()
	require.NotZero(t, pid)
	require.NoError(t, m.Kill())
	require.False(t, m.Running())
	require.Zero(t, m.PID())

	var resp *clientv3.PutResponse
	require.Eventually(t, func() bool { // a new leader is elected meanwhile
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		resp, err = cli.Put(wctx, "/during", "2")
		return err == nil
	}, time.Minute, 50*time.Millisecond)

	require.NoError(t, m.Restart(ctx))
	require.True(t, m.Running())
	require.NotEqual(t, pid, m.PID())
	rev, err := c.WaitInSync(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, rev, resp.Header.Revision)

	only, err := clientv3.New(clientv3.Config{Endpoints: []string{m.ClientURL}, DialTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer only.Close()
	got, err := only.Get(ctx, "/during", clientv3.WithSerializable())
	require.NoError(t, err)
	require.Len(t, got.Kvs, 1, "the restarted member caught up")
}

func TestStartNeedsMembers(t *testing.T) {
	_, err := etcdtest.StartCluster(t.Context(), "etcd", t.TempDir(), etcdtest.Config{Members: -1})
	require.Error(t, err)
}
