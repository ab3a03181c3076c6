package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/client"
)

// TestKubernetesService: the control plane keeps the kubernetes Service
// (first service IP, port 443 to the advertised port) with Endpoints and
// an EndpointSlice at the advertise address, and relays that address to
// the API server, whose certificate is valid for the Service's IP and
// names.
func TestKubernetesService(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// An advertise address that does not exist on this machine (TEST-NET-1;
	// endpoints may not be loopback addresses): IP_FREEBIND binds it all
	// the same, nothing ever connects to it. The relay is checked below on
	// a loopback address of its own.
	_, port, err := net.SplitHostPort(freeAddr(t))
	require.NoError(t, err)
	adv := "192.0.2.10:" + port
	cp, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: freeAddr(t), AdvertiseAddress: adv})
	require.NoError(t, err)
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)

	svc, err := client.For[core.Service](c, "default").Get(ctx, "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.1", svc.Spec.ClusterIP)
	require.Len(t, svc.Spec.Ports, 1)
	assert.Equal(t, "https", svc.Spec.Ports[0].Name)
	assert.Equal(t, int32(443), svc.Spec.Ports[0].Port)
	assert.Equal(t, port, svc.Spec.Ports[0].TargetPort.String())
	assert.Empty(t, svc.Spec.Selector)

	ep, err := client.For[core.Endpoints](c, "default").Get(ctx, "kubernetes")
	require.NoError(t, err)
	require.Len(t, ep.Subsets, 1)
	assert.Equal(t, "192.0.2.10", ep.Subsets[0].Addresses[0].IP)
	assert.Equal(t, port, strconv.Itoa(int(ep.Subsets[0].Ports[0].Port)))
	slice, err := client.For[discovery.EndpointSlice](c, "default").Get(ctx, "kubernetes")
	require.NoError(t, err)
	assert.Equal(t, "kubernetes", slice.Labels[discovery.LabelServiceName])
	assert.Equal(t, []string{"192.0.2.10"}, slice.Endpoints[0].Addresses)

	// The relay: TLS through the advertise address, checked as a pod
	// checks it (rest.InClusterConfig: the cluster CA, host 10.96.0.1).
	ln, err := listenFreebind(ctx, "127.0.0.2:0")
	require.NoError(t, err)
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		relay(ctx, ln, cp.Server.Addr().String(), slog.Default())
	}()
	t.Cleanup(func() {
		cancel()
		<-relayed
	})
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cp.CA.CertPEM)
	for _, name := range []string{"10.96.0.1", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "192.0.2.10"} {
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: name}}}
		resp, err := hc.Get("https://" + ln.Addr().String() + "/readyz")
		require.NoError(t, err, name)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, string(b))
		hc.CloseIdleConnections()
	}

	// Reconciling again changes nothing; deleted Endpoints and Service
	// come back at the next reconcile.
	m := &masterReconciler{c: c, log: slog.Default(), advertise: netip.MustParseAddrPort(adv)}
	require.NoError(t, m.reconcile(ctx))
	require.NoError(t, client.For[core.Endpoints](c, "default").Delete(ctx, "kubernetes", nil))
	require.NoError(t, client.For[core.Service](c, "default").Delete(ctx, "kubernetes", nil))
	require.NoError(t, m.reconcile(ctx))
	_, err = client.For[core.Endpoints](c, "default").Get(ctx, "kubernetes")
	assert.NoError(t, err)
	_, err = client.For[core.Service](c, "default").Get(ctx, "kubernetes")
	assert.NoError(t, err)
}

func TestAdvertiseAddressInvalid(t *testing.T) {
	_, err := Start(context.Background(), Config{DataDir: t.TempDir(), AdvertiseAddress: "not-an-ip:443"})
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
