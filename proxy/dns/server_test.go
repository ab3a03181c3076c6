package dns_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/proxy/dns"
	"github.com/orkit/orkit/serving"
)

func TestServerFollowsServices(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	srv, err := dns.New(dns.Config{Client: c, Listen: "127.0.0.1:0", Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-srv.Ready():
	case err := <-done:
		t.Fatal(err)
	}
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Addr().String())
	}}
	lookup := func(name string) []string {
		ips, _ := r.LookupHost(ctx, name)
		return ips
	}
	_, err = client.For[core.Service](c, "default").Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: core.ServiceSpec{ClusterIP: "10.96.0.77", Ports: []core.ServicePort{{Name: "http", Port: 80}}}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		ips := lookup("web.default.svc.cluster.local")
		return len(ips) == 1 && ips[0] == "10.96.0.77"
	}, "service name answered")
	_, srvs, err := r.LookupSRV(ctx, "http", "tcp", "web.default.svc.cluster.local")
	require.NoError(t, err)
	require.Len(t, srvs, 1)
	assert.Equal(t, uint16(80), srvs[0].Port)

	require.NoError(t, client.For[core.Service](c, "default").Delete(ctx, "web", nil))
	testnode.Eventually(t, 30*time.Second, func() bool { return len(lookup("web.default.svc.cluster.local")) == 0 }, "deleted service gone")

	// a second server cannot take the same address: a clear error
	dup, err := dns.New(dns.Config{Client: c, Listen: srv.Addr().String()})
	require.NoError(t, err)
	assert.ErrorContains(t, dup.Run(ctx), "listen udp")

	cancel()
	require.NoError(t, <-done)
	_, err = dns.New(dns.Config{})
	assert.ErrorIs(t, err, dns.ErrInvalidConfig)
}

// TestTCPConnectionsPerClientAreCapped: one client opening 300 idle TCP
// connections keeps at most serving.DefaultMaxUnauthenticatedConns of
// them; queries over a new connection are still answered.
func TestTCPConnectionsPerClientAreCapped(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	srv, err := dns.New(dns.Config{Client: c, Listen: "127.0.0.1:0", Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	<-srv.Ready()
	var conns []net.Conn
	for range 300 {
		conn, err := net.Dial("tcp", srv.Addr().String())
		require.NoError(t, err)
		conns = append(conns, conn)
	}
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", srv.Addr().String())
	}}
	_, err = r.LookupHost(ctx, "kubernetes.default.svc.cluster.local")
	var dnsErr *net.DNSError
	if err != nil {
		require.ErrorAs(t, err, &dnsErr)
		require.True(t, dnsErr.IsNotFound, "answered (NXDOMAIN without a kubernetes Service): %v", err)
	}
	open := 0
	for _, conn := range conns {
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := conn.Read(make([]byte, 1))
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			open++
		}
		conn.Close()
	}
	assert.LessOrEqual(t, open, serving.DefaultMaxUnauthenticatedConns)
}
