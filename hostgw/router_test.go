package hostgw

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
)

// TestRouterFollowsNodes runs a Router as node n1 (the Node authorizer
// lets it watch every Node) against a real API server: a route appears
// when n2 has a pod CIDR and an InternalIP, moves with n2's address and
// goes when n2 is deleted.
func TestRouterFollowsNodes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: t.TempDir(), Listen: addr})
	require.NoError(t, err)
	admcfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	admin, err := client.New(admcfg)
	require.NoError(t, err)
	nodecfg, err := cp.ClientConfig("system:node:n1", "system:nodes")
	require.NoError(t, err)
	asNode, err := client.New(nodecfg)
	require.NoError(t, err)

	nodes := client.For[core.Node](admin, "")
	put := func(name, ip, cidr string) {
		n, err := nodes.Get(ctx, name)
		if err != nil {
			n, err = nodes.Create(ctx, node(name, "", cidr))
			require.NoError(t, err)
		}
		n.Status.Addresses = []core.NodeAddress{{Type: core.NodeInternalIP, Address: ip}}
		_, err = nodes.UpdateStatus(ctx, n)
		require.NoError(t, err)
	}
	put("n1", "10.250.0.11", "10.244.1.0/24")

	tab := &mapTable{routes: map[netip.Prefix]netip.Addr{}}
	r, err := New(Config{Client: asNode, NodeName: "n1", Table: tab, ResyncPeriod: time.Hour})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()

	want := func(what string, routes ...Route) {
		t.Helper()
		require.Eventually(t, func() bool {
			got, _ := r.Routes()
			return fmt.Sprint(got) == fmt.Sprint(routes)
		}, 20*time.Second, 20*time.Millisecond, what)
	}
	put("n2", "10.250.0.12", "10.244.2.0/24")
	want("n2 routed", rt("10.244.2.0/24", "10.250.0.12", ""))
	put("n2", "10.250.0.22", "10.244.2.0/24")
	want("n2's new address", rt("10.244.2.0/24", "10.250.0.22", ""))
	require.NoError(t, nodes.Delete(ctx, "n2", nil))
	want("n2 gone")
}
