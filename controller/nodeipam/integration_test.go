package nodeipam_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/nodeipam"
	"github.com/orkit/orkit/internal/testnode"
)

func runIPAM(t *testing.T, cl *testnode.Cluster) (stop func()) {
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	c, err := nodeipam.New(m, nodeipam.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(c))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	stop = func() { cancel(); require.NoError(t, <-done) }
	testnode.Eventually(t, time.Minute, func() bool { return m.Ready() == nil }, "manager ready")
	return stop
}

func TestNodeIPAMUniqueAndRecovered(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	nodes := client.For[core.Node](c, "")
	// One node already has a CIDR (assigned before the controller ran).
	_, err := nodes.Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: "preset"}, Spec: core.NodeSpec{PodCIDR: "10.244.0.0/24", PodCIDRs: []string{"10.244.0.0/24"}}})
	require.NoError(t, err)
	stop := runIPAM(t, cl)
	testnode.RunAgent(t, c, testnode.Config{Nodes: 5})

	cidrs := func() map[string]string {
		l, err := nodes.List(ctx, client.ListOptions{})
		require.NoError(t, err)
		out := map[string]string{}
		for _, n := range l.Items {
			out[n.Name] = n.Spec.PodCIDR
		}
		return out
	}
	allAssigned := func(want int) bool {
		got := cidrs()
		if len(got) != want {
			return false
		}
		for _, v := range got {
			if v == "" {
				return false
			}
		}
		return true
	}
	testnode.Eventually(t, 30*time.Second, func() bool { return allAssigned(6) }, "6 nodes with CIDRs")
	stop()

	// A restarted controller recovers what is taken and gives a new node
	// a fresh CIDR.
	stop = runIPAM(t, cl)
	defer stop()
	_, err = nodes.Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: "late"}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool { return allAssigned(7) }, "7 nodes with CIDRs")
	seen := map[string]string{}
	cluster := netip.MustParsePrefix("10.244.0.0/16")
	for node, cidr := range cidrs() {
		p := netip.MustParsePrefix(cidr)
		assert.True(t, cluster.Contains(p.Addr()) && p.Bits() == 24, "%s: %s", node, cidr)
		prev, dup := seen[cidr]
		assert.False(t, dup, "%s and %s share %s", node, prev, cidr)
		seen[cidr] = node
	}
	assert.Equal(t, "preset", seen["10.244.0.0/24"])
	n, err := nodes.Get(ctx, "late")
	require.NoError(t, err)
	assert.Equal(t, []string{n.Spec.PodCIDR}, n.Spec.PodCIDRs)
}

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNodeIPAMWarnsOncePerCIDR: a node whose pod CIDR lies outside the
// cluster CIDR is reported once, not on every reconcile of the node.
func TestNodeIPAMWarnsOncePerCIDR(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	_, err := client.For[core.Node](c, "").Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: "outside"},
		Spec: core.NodeSpec{PodCIDR: "10.9.0.0/24", PodCIDRs: []string{"10.9.0.0/24"}}})
	require.NoError(t, err)
	var logs syncBuffer
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	r, err := nodeipam.New(m, nodeipam.Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	require.NoError(t, m.Add(r))
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	testnode.Eventually(t, time.Minute, func() bool { return m.Ready() == nil }, "manager ready")
	for range 3 {
		_, err := r.Reconcile(ctx, controller.Request{Name: "outside"})
		require.NoError(t, err)
	}
	assert.Equal(t, 1, strings.Count(logs.String(), "node pod CIDR outside the cluster CIDR"), logs.String())
}
