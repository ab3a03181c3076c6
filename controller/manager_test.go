package controller

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// electedManager is a manager standing for election with one controller
// that counts the namespaces it reconciles.
type electedManager struct {
	m          *Manager
	reconciles atomic.Int64
	stop       func() error
}

func newElectedManager(t *testing.T, tc *testCluster, id string, skipRelease bool) *electedManager {
	t.Helper()
	em := &electedManager{}
	m, err := NewManager(ManagerConfig{Client: tc.client(t), Logger: quietLogger(), LeaderElection: &LeaderElectionConfig{
		Namespace: "kube-system", Name: "test-manager", Identity: id,
		// Short, but with room for a slow API server on a busy machine: a
		// renewal may take up to 1.5 s before the leader gives up.
		LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 250 * time.Millisecond,
		SkipRelease: skipRelease,
	}})
	require.NoError(t, err)
	nsInf, err := InformerFor[core.Namespace](m, "")
	require.NoError(t, err)
	c, err := New("count-"+id, ReconcilerFunc(func(context.Context, Request) (Result, error) {
		em.reconciles.Add(1)
		return Result{}, nil
	}), Config{Logger: quietLogger()})
	require.NoError(t, err)
	WatchObjects(c, nsInf)
	require.NoError(t, m.Add(c))
	em.m = m
	em.stop = runManager(t, m)
	return em
}

func TestManagersElectOneLeaderAndFailOver(t *testing.T) {
	tc := startCluster(t)
	a := newElectedManager(t, tc, "manager-a", true)
	b := newElectedManager(t, tc, "manager-b", true)
	for _, em := range []*electedManager{a, b} {
		eventually(t, 30*time.Second, func() bool { return em.m.Ready() == nil }, "manager ready (standbys too)")
	}
	var leader, standby *electedManager
	eventually(t, wait, func() bool {
		la, lb := a.m.IsLeader(), b.m.IsLeader()
		require.False(t, la && lb, "two leaders at once")
		switch {
		case la:
			leader, standby = a, b
		case lb:
			leader, standby = b, a
		}
		return la || lb
	}, "one manager leads")
	eventually(t, wait, func() bool { return leader.reconciles.Load() > 0 }, "the leader's controller runs")
	assert.Zero(t, standby.reconciles.Load(), "the standby runs no controller")
	assert.False(t, standby.m.IsLeader())
	require.NoError(t, leader.m.Healthy())
	require.NoError(t, standby.m.Healthy())

	leases := client.For[coordination.Lease](tc.client(t), "kube-system")
	ctx := context.Background()
	l, err := leases.Get(ctx, "test-manager")
	require.NoError(t, err)
	leaderID := leader.m.Elector().Config().Identity
	assert.Equal(t, leaderID, holderOf(l))

	// Kill the leader without releasing: the standby takes over once the
	// lease (2 s) runs out.
	require.NoError(t, leader.stop())
	assert.False(t, leader.m.IsLeader())
	eventually(t, 15*time.Second, standby.m.IsLeader, "the standby takes over")
	eventually(t, wait, func() bool { return standby.reconciles.Load() > 0 }, "the new leader's controller runs")
	l, err = leases.Get(ctx, "test-manager")
	require.NoError(t, err)
	assert.Equal(t, standby.m.Elector().Config().Identity, holderOf(l))
	require.NotNil(t, l.Spec.LeaseTransitions)
	assert.GreaterOrEqual(t, *l.Spec.LeaseTransitions, int32(1))
}

func TestManagerReleasesLeaseOnCleanStop(t *testing.T) {
	tc := startCluster(t)
	a := newElectedManager(t, tc, "manager-a", false)
	eventually(t, 30*time.Second, a.m.IsLeader, "a leads")
	require.NoError(t, a.stop())
	l, err := client.For[coordination.Lease](tc.client(t), "kube-system").Get(context.Background(), "test-manager")
	require.NoError(t, err)
	assert.Equal(t, "", holderOf(l), "released")
}

func TestManagerConfigAndMisuse(t *testing.T) {
	_, err := NewManager(ManagerConfig{})
	assert.ErrorIs(t, err, ErrInvalidConfig)

	c, err := client.New(&client.Config{Host: "https://127.0.0.1:1"})
	require.NoError(t, err)
	_, err = NewManager(ManagerConfig{Client: c, LeaderElection: &LeaderElectionConfig{Name: "x"}})
	assert.ErrorIs(t, err, ErrInvalidConfig, "leader election settings are checked")

	m, err := NewManager(ManagerConfig{Client: c, Logger: quietLogger()})
	require.NoError(t, err)
	_, err = InformerFor[struct{ core.ConfigMap }](m, "")
	assert.ErrorIs(t, err, client.ErrNotRegistered)
	assert.ErrorIs(t, m.Ready(), ErrNotReady)
	assert.ErrorIs(t, m.Healthy(), ErrUnhealthy)
	assert.False(t, m.IsLeader())
	assert.Nil(t, m.Elector())
}

func TestManagerFailsWhenCachesDoNotSync(t *testing.T) {
	c, err := client.New(&client.Config{Host: "https://127.0.0.1:1"}, client.WithLogger(quietLogger()), client.WithRetry(0, time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	m, err := NewManager(ManagerConfig{Client: c, Logger: quietLogger(), CacheSyncTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	_, err = InformerFor[core.Namespace](m, "")
	require.NoError(t, err)
	err = m.Run(context.Background())
	assert.ErrorIs(t, err, ErrCacheSyncTimeout)
	assert.ErrorIs(t, m.Run(context.Background()), ErrAlreadyRunning)
	assert.ErrorIs(t, m.Add(nil), ErrAlreadyRunning)
}

// failing is a Runnable that fails at once.
type failing struct{}

func (failing) Run(context.Context) error { return errors.New("cannot start") }

func TestManagerStopsWhenAControllerFails(t *testing.T) {
	tc := startCluster(t)
	m, err := NewManager(ManagerConfig{Client: tc.client(t), Logger: quietLogger()})
	require.NoError(t, err)
	_, c := setupNamespaceInfo(t, m)
	require.NoError(t, m.Add(failing{}))
	err = m.Run(context.Background())
	assert.ErrorContains(t, err, "cannot start")
	assert.NotNil(t, c)
}

// The manager's informers cache objects without managedFields.
func TestManagerInformersStripManagedFields(t *testing.T) {
	tc := startCluster(t)
	cl := tc.client(t)
	created, err := client.For[core.ConfigMap](cl, "default").Create(context.Background(),
		&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "cm"}, Data: map[string]string{"a": "b"}})
	require.NoError(t, err)
	require.NotEmpty(t, created.ManagedFields, "the server records managedFields")
	m, err := NewManager(ManagerConfig{Client: cl, Logger: quietLogger()})
	require.NoError(t, err)
	inf, err := InformerFor[core.ConfigMap](m, "default")
	require.NoError(t, err)
	require.NoError(t, m.Add(untilStopped{})) // a manager runs while something does
	runManager(t, m)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, err := inf.Lister().Get("default", "cm"); err == nil {
			assert.Nil(t, got.ManagedFields)
			assert.Equal(t, "b", got.Data["a"])
			return
		}
		require.True(t, time.Now().Before(deadline), "the informer never had the ConfigMap")
		time.Sleep(10 * time.Millisecond) // polling the cache
	}
}

// untilStopped is a Runnable that runs until its context ends.
type untilStopped struct{}

func (untilStopped) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}
