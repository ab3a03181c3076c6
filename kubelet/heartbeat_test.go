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
