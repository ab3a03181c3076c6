package proxy_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/proxy"
)

// fakeRunner records scripts and fails when told to.
type fakeRunner struct {
	mu      sync.Mutex
	scripts []string
	fail    int // the next fail applies fail
}

func (f *fakeRunner) Apply(_ context.Context, script string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scripts = append(f.scripts, script)
	if f.fail > 0 {
		f.fail--
		return errors.New("boom")
	}
	return nil
}

func (f *fakeRunner) last() (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.scripts) == 0 {
		return "", 0
	}
	return f.scripts[len(f.scripts)-1], len(f.scripts)
}

func TestProxyRunFollowsChanges(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	fr := &fakeRunner{}
	px, err := proxy.New(proxy.Config{Client: c, Runner: fr, MinSyncInterval: time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- px.Run(ctx) }()

	testnode.Eventually(t, 30*time.Second, func() bool { return px.Syncs() >= 1 }, "first sync")
	first, _ := fr.last()
	assert.Contains(t, first, "delete table ip orkit-proxy", "the first sync replaces the table")

	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: core.ServiceSpec{ClusterIP: "10.96.0.50", Ports: []core.ServicePort{{Name: "http", Port: 80}}}}
	_, err = client.For[core.Service](c, "default").Create(ctx, svc)
	require.NoError(t, err)
	fr.mu.Lock()
	fr.fail = 1 // the sync with the endpoints fails once: the retry is a full script
	fr.mu.Unlock()
	createSlice(t, c, "web", "10.244.0.2", "http", 8080, core.ProtocolTCP)
	testnode.Eventually(t, 30*time.Second, func() bool {
		s, _ := fr.last()
		return strings.Contains(s, "dnat to 10.244.0.2:8080") && px.Err() == nil
	}, "endpoint programmed after a failed apply")
	s, _ := fr.last()
	assert.Contains(t, s, "delete table", "after a failure the whole table is rewritten")

	require.NoError(t, client.For[core.Service](c, "default").Delete(ctx, "web", nil))
	testnode.Eventually(t, 30*time.Second, func() bool {
		s, _ := fr.last()
		return strings.Contains(s, "delete element") && !strings.Contains(s, "delete table")
	}, "incremental removal")

	cancel()
	require.NoError(t, <-done)
	s, _ = fr.last()
	assert.Equal(t, proxy.DeleteScript(""), s, "a clean exit removes the table")
}

func TestProxyNewErrors(t *testing.T) {
	_, err := proxy.New(proxy.Config{})
	assert.ErrorIs(t, err, proxy.ErrInvalidConfig)
}

// fakeConntrack records the UDP flows the proxy clears.
type fakeConntrack struct {
	mu    sync.Mutex
	flows []proxy.UDPFlow
}

func (f *fakeConntrack) DeleteUDP(flows []proxy.UDPFlow) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flows = append(f.flows, flows...)
	return nil
}

func (f *fakeConntrack) cleared() []proxy.UDPFlow {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]proxy.UDPFlow(nil), f.flows...)
}

// TestProxyClearsStaleUDPFlows: once a UDP Service gets its first
// endpoint, the flows clients opened to it while nothing answered are
// cleared, after the rules that now answer are applied; a TCP Service
// clears nothing.
func TestProxyClearsStaleUDPFlows(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	fr, ct := &fakeRunner{}, &fakeConntrack{}
	px, err := proxy.New(proxy.Config{Client: c, Runner: fr, Conntrack: ct, MinSyncInterval: time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- px.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()
	testnode.Eventually(t, 30*time.Second, func() bool { return px.Syncs() >= 1 }, "first sync")

	for _, p := range []core.Protocol{core.ProtocolUDP, core.ProtocolTCP} {
		name := strings.ToLower(string(p))
		ip := map[core.Protocol]string{core.ProtocolUDP: "10.96.0.53", core.ProtocolTCP: "10.96.0.54"}[p]
		_, err = client.For[core.Service](c, "default").Create(ctx, &core.Service{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
			Spec: core.ServiceSpec{ClusterIP: ip, Ports: []core.ServicePort{{Name: "dns", Port: 53, Protocol: p}}}})
		require.NoError(t, err)
		createSlice(t, c, name, "10.244.0.9", "dns", 5353, p)
	}
	testnode.Eventually(t, 30*time.Second, func() bool {
		s, _ := fr.last()
		return strings.Contains(s, "10.96.0.54") && len(ct.cleared()) > 0
	}, "both services programmed, UDP flows cleared")
	assert.Equal(t, []proxy.UDPFlow{{Dst: netip.MustParseAddr("10.96.0.53"), Port: 53}}, ct.cleared())
}

// createSlice writes the EndpointSlice of Service default/svc with one
// ready endpoint, as the EndpointSlice controller would.
func createSlice(t *testing.T, c *client.Client, svc, ip, portName string, port int32, proto core.Protocol) {
	t.Helper()
	_, err := client.For[discovery.EndpointSlice](c, "default").Create(context.Background(), &discovery.EndpointSlice{
		ObjectMeta:  meta.ObjectMeta{GenerateName: svc + "-", Namespace: "default", Labels: map[string]string{discovery.LabelServiceName: svc}},
		AddressType: discovery.AddressTypeIPv4,
		Endpoints:   []discovery.Endpoint{{Addresses: []string{ip}}},
		Ports:       []discovery.EndpointPort{{Name: &portName, Port: &port, Protocol: &proto}},
	})
	require.NoError(t, err)
}
