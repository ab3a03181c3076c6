package kubelet

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

// hungRuntime is a runtime whose Status and Version calls, while hung,
// wait for their context to end: a containerd that died under a client
// that waits for it (cri/containerd's calls wait for the connection).
type hungRuntime struct {
	*fake.Runtime
	hung atomic.Bool
}

func (h *hungRuntime) Status(ctx context.Context) (cri.RuntimeStatus, error) {
	if h.hung.Load() {
		<-ctx.Done()
		return cri.RuntimeStatus{}, ctx.Err()
	}
	return h.Runtime.Status(ctx)
}

func (h *hungRuntime) Version(ctx context.Context) (cri.VersionInfo, error) {
	if h.hung.Load() {
		<-ctx.Done()
		return cri.VersionInfo{}, ctx.Err()
	}
	return h.Runtime.Version(ctx)
}

// TestHeartbeatWithHungRuntime: a runtime that stops answering makes the
// node NotReady (the kubelet says so), not Unknown (the kubelet gone
// silent): the heartbeat's runtime calls are bounded. When it answers
// again the node is Ready again, and the runtime version is kept
// meanwhile.
func TestHeartbeatWithHungRuntime(t *testing.T) {
	tc := startCluster(t)
	f, err := fake.New(fake.WithImages("orkit.local/pause:v1"))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	rt := &hungRuntime{Runtime: f}
	k, err := New(Config{NodeName: "node-h", Client: tc.nodeClient(t, "node-h"), Runtime: rt, Logger: quietLogger(),
		NodeStatusInterval: 100 * time.Millisecond, LeaseRenewInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = k.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	nodes := client.For[core.Node](tc.admin, "")
	readyStatus := func() (meta.ConditionStatus, *core.Node) {
		n, err := nodes.Get(context.Background(), "node-h")
		if err != nil {
			return "", nil
		}
		if _, c := core.GetNodeCondition(&n.Status, core.NodeReady); c != nil {
			return c.Status, n
		}
		return "", n
	}
	waitFor(t, 10*time.Second, "node ready", func() bool { s, _ := readyStatus(); return s == meta.ConditionTrue })
	_, n := readyStatus()
	version := n.Status.NodeInfo.ContainerRuntimeVersion
	require.NotEmpty(t, version)

	rt.hung.Store(true)
	waitFor(t, 30*time.Second, "node NotReady, reported by the kubelet", func() bool {
		s, _ := readyStatus()
		return s == meta.ConditionFalse
	})
	_, n = readyStatus()
	_, c := core.GetNodeCondition(&n.Status, core.NodeReady)
	assert.Contains(t, c.Message, "container runtime")
	assert.Equal(t, version, n.Status.NodeInfo.ContainerRuntimeVersion, "the version is kept while the runtime is down")

	rt.hung.Store(false)
	waitFor(t, 30*time.Second, "node Ready again", func() bool { s, _ := readyStatus(); return s == meta.ConditionTrue })
}

// TestStatusRewrittenWhenMarkedUnknown: when another writer (the node
// lifecycle controller, after a late heartbeat) sets the node's Ready
// condition to Unknown, the kubelet writes its status again at its next
// status interval, as the kubelet compares against the server's copy,
// instead of waiting out NodeStatusReportPeriod. Both a standalone
// Kubelet (its own node informer) and a SimPool node (the pool's) do.
func TestStatusRewrittenWhenMarkedUnknown(t *testing.T) {
	tc := startCluster(t)
	nodes := client.For[core.Node](tc.admin, "")
	ready := func(name string) meta.ConditionStatus {
		n, err := nodes.Get(context.Background(), name)
		if err != nil {
			return ""
		}
		if _, c := core.GetNodeCondition(&n.Status, core.NodeReady); c != nil {
			return c.Status
		}
		return ""
	}
	markUnknown := func(t *testing.T, name string) {
		n, err := nodes.Get(context.Background(), name)
		require.NoError(t, err)
		for i := range n.Status.Conditions {
			n.Status.Conditions[i].Status, n.Status.Conditions[i].Reason = meta.ConditionUnknown, "NodeStatusUnknown"
		}
		_, err = nodes.UpdateStatus(context.Background(), n)
		require.NoError(t, err)
	}
	intervals := Config{NodeStatusInterval: 100 * time.Millisecond, LeaseRenewInterval: 200 * time.Millisecond,
		NodeStatusReportPeriod: time.Hour}

	t.Run("standalone", func(t *testing.T) {
		f, err := fake.New(fake.WithImages("orkit.local/pause:v1"))
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		cfg := intervals
		cfg.NodeName, cfg.Client, cfg.Runtime, cfg.Logger = "node-u", tc.nodeClient(t, "node-u"), f, quietLogger()
		k, err := New(cfg)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = k.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		waitFor(t, 10*time.Second, "node ready", func() bool { return ready("node-u") == meta.ConditionTrue })
		markUnknown(t, "node-u")
		waitFor(t, 10*time.Second, "Ready again long before the report period", func() bool { return ready("node-u") == meta.ConditionTrue })
	})

	t.Run("simulated", func(t *testing.T) {
		pool := NewSimPool(tc.admin, SimConfig{Logger: quietLogger(), Base: intervals, HeartbeatTick: 10 * time.Millisecond})
		_, err := pool.Add("sim-u")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = pool.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		waitFor(t, 10*time.Second, "node ready", func() bool { return ready("sim-u") == meta.ConditionTrue })
		markUnknown(t, "sim-u")
		waitFor(t, 10*time.Second, "Ready again long before the report period", func() bool { return ready("sim-u") == meta.ConditionTrue })
	})
}
