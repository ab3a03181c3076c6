package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

const infoName = "namespace-info"

// namespaceInfo is the example controller: it keeps a ConfigMap
// "namespace-info" in every active Namespace, recreates it when it is
// deleted, and does nothing for a namespace that is terminating or gone.
// It reads from the listers, writes through the client, and uses
// Expectations so that it does not create twice before its cache shows
// the first creation.
type namespaceInfo struct {
	namespaces informer.Lister[*core.Namespace]
	configMaps informer.Lister[*core.ConfigMap]
	client     *client.Client
	exp        *Expectations

	mu      sync.Mutex
	creates map[string]int
}

func (r *namespaceInfo) Reconcile(ctx context.Context, req Request) (Result, error) {
	ns, err := r.namespaces.Get("", req.Name)
	if errors.Is(err, informer.ErrNotFound) {
		r.exp.Forget(req) // the namespace is gone: so is everything we waited for
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	if ns.DeletionTimestamp != nil || ns.Status.Phase == core.NamespaceTerminating {
		return Result{}, nil
	}
	if _, err := r.configMaps.Namespace(ns.Name).Get(infoName); err == nil {
		return Result{}, nil
	}
	if !r.exp.Satisfied(req) {
		return Result{}, nil // the creation's event will requeue us
	}
	r.exp.ExpectCreations(req, 1)
	yes := true
	cm := &core.ConfigMap{
		ObjectMeta: meta.ObjectMeta{Name: infoName, Namespace: ns.Name, OwnerReferences: []meta.OwnerReference{
			{APIVersion: "v1", Kind: "Namespace", Name: ns.Name, UID: ns.UID, Controller: &yes}}},
		Data: map[string]string{"namespace": ns.Name, "uid": string(ns.UID)},
	}
	if _, err := client.For[core.ConfigMap](r.client, ns.Name).Create(ctx, cm); err != nil {
		r.exp.CreationObserved(req) // no event will come for a failed create
		if apierrors.IsAlreadyExists(err) {
			return Result{}, nil
		}
		return Result{}, fmt.Errorf("create %s/%s: %w", ns.Name, infoName, err)
	}
	r.mu.Lock()
	r.creates[ns.Name]++
	r.mu.Unlock()
	return Result{}, nil
}

func (r *namespaceInfo) createCount(ns string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.creates[ns]
}

// setupNamespaceInfo wires the example controller into m.
func setupNamespaceInfo(t *testing.T, m *Manager) (*namespaceInfo, *Controller) {
	t.Helper()
	nsInf, err := InformerFor[core.Namespace](m, "")
	require.NoError(t, err)
	cmInf, err := InformerFor[core.ConfigMap](m, "")
	require.NoError(t, err)
	r := &namespaceInfo{namespaces: nsInf.Lister(), configMaps: cmInf.Lister(), client: m.Client(),
		exp: NewExpectations(nil, 0), creates: map[string]int{}}
	cmInf.AddEventHandler(informer.HandlerFuncs[*core.ConfigMap]{AddFunc: func(cm *core.ConfigMap, _ bool) {
		if cm.Name == infoName {
			r.exp.CreationObserved(Request{Name: cm.Namespace})
		}
	}})
	c, err := New("namespace-info", r, Config{Logger: quietLogger()})
	require.NoError(t, err)
	WatchObjects(c, nsInf)
	WatchOwned(c, cmInf, OwnerKind{Kind: "Namespace", ClusterScoped: true})
	require.NoError(t, m.Add(c))
	return r, c
}

// runManager runs m until the test ends; stop cancels it and returns
// Run's error.
func runManager(t *testing.T, m *Manager) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- m.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-errc })
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func TestNamespaceInfoController(t *testing.T) {
	tc := startCluster(t)
	c := tc.client(t)
	m, err := NewManager(ManagerConfig{Client: c, Logger: quietLogger()})
	require.NoError(t, err)
	r, _ := setupNamespaceInfo(t, m)
	stop := runManager(t, m)
	eventually(t, 30*time.Second, func() bool { return m.Ready() == nil }, "manager ready")
	require.NoError(t, m.Healthy())

	ctx := context.Background()
	namespaces := client.For[core.Namespace](c, "")
	for _, n := range []string{"team-a", "team-b"} {
		_, err := namespaces.Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: n}})
		require.NoError(t, err)
	}
	info := func(ns string) (*core.ConfigMap, error) { return client.For[core.ConfigMap](c, ns).Get(ctx, infoName) }
	for _, n := range []string{"default", "kube-system", "team-a", "team-b"} {
		eventually(t, wait, func() bool { _, err := info(n); return err == nil }, "%s has its ConfigMap", n)
	}
	first, err := info("team-a")
	require.NoError(t, err)
	assert.Equal(t, "team-a", first.Data["namespace"])

	// Deleted: recreated.
	require.NoError(t, client.For[core.ConfigMap](c, "team-a").Delete(ctx, infoName, nil))
	eventually(t, wait, func() bool {
		cm, err := info("team-a")
		return err == nil && cm.UID != first.UID
	}, "team-a's ConfigMap recreated")
	eventually(t, wait, func() bool { return r.createCount("team-a") == 2 }, "two creations counted for team-a")

	// Terminating namespace: not recreated.
	require.NoError(t, namespaces.Delete(ctx, "team-b", nil))
	require.NoError(t, client.For[core.ConfigMap](c, "team-b").Delete(ctx, infoName, nil))
	eventually(t, wait, func() bool {
		_, cmErr := r.configMaps.Namespace("team-b").Get(infoName)
		ns, nsErr := r.namespaces.Get("", "team-b")
		return errors.Is(cmErr, informer.ErrNotFound) && nsErr == nil && ns.Status.Phase == core.NamespaceTerminating
	}, "the cache shows team-b terminating without its ConfigMap")
	res, err := r.Reconcile(ctx, Request{Name: "team-b"}) // what any reconcile from now on does
	require.NoError(t, err)
	assert.True(t, res.IsZero())
	_, err = info("team-b")
	assert.True(t, apierrors.IsNotFound(err), "no ConfigMap in a terminating namespace: %v", err)
	assert.Equal(t, 1, r.createCount("team-b"))

	// Gone: the controller forgets it.
	tc.finalize(t, "team-b")
	eventually(t, wait, func() bool {
		_, err := r.namespaces.Get("", "team-b")
		return errors.Is(err, informer.ErrNotFound)
	}, "team-b gone from the cache")
	res, err = r.Reconcile(ctx, Request{Name: "team-b"})
	require.NoError(t, err)
	assert.True(t, res.IsZero())
	assert.True(t, r.exp.Satisfied(Request{Name: "team-b"}))

	require.NoError(t, stop())
	assert.ErrorIs(t, m.Ready(), ErrNotReady)
	assert.ErrorIs(t, m.Healthy(), ErrUnhealthy)
}
