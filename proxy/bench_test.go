package proxy

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/meta"
)

// benchCluster is n Services with eps ready endpoints each.
func benchCluster(n, eps int) ([]*core.Service, []*core.Endpoints) {
	var svcs []*core.Service
	var endpointsList []*core.Endpoints
	for i := range n {
		name := fmt.Sprintf("svc-%d", i)
		svcs = append(svcs, service("default", name, fmt.Sprintf("10.96.%d.%d", i/250, i%250+2), nil))
		var ips []string
		for j := range eps {
			ips = append(ips, fmt.Sprintf("10.244.%d.%d", (i*eps+j)/250, (i*eps+j)%250+2))
		}
		endpointsList = append(endpointsList, endpoints("default", name, 8080, ips))
	}
	return svcs, endpointsList
}

// BenchmarkApply1000x10 is the time to program 1,000 Services with 10
// endpoints each into an empty table (render, script, nft), in a private
// network namespace.
func BenchmarkApply1000x10(b *testing.B) {
	requireRootNFT(b)
	ns := newNetNS(b)
	nft := &NFT{NetNS: ns}
	svcs, eps := benchCluster(1000, 10)
	ctx := context.Background()
	for b.Loop() {
		rs := Render(svcs, eps)
		require.NoError(b, nft.Apply(ctx, rs.Script()))
	}
}

// BenchmarkEndpointChange1000x10 is the time to apply one endpoint change
// (one Service's endpoint replaced) with 1,000 Services of 10 endpoints
// programmed: render everything, diff, apply the difference.
func BenchmarkEndpointChange1000x10(b *testing.B) {
	requireRootNFT(b)
	ns := newNetNS(b)
	nft := &NFT{NetNS: ns}
	svcs, eps := benchCluster(1000, 10)
	ctx := context.Background()
	applied := Render(svcs, eps)
	require.NoError(b, nft.Apply(ctx, applied.Script()))
	i := 0
	for b.Loop() {
		i++
		ips := []string{fmt.Sprintf("10.250.%d.%d", i/250%250, i%250+1)}
		for j := 1; j < 10; j++ {
			ips = append(ips, fmt.Sprintf("10.244.%d.%d", (500*10+j)/250, (500*10+j)%250+2))
		}
		eps[500] = endpoints("default", "svc-500", 8080, ips)
		want := Render(svcs, eps)
		require.NoError(b, nft.Apply(ctx, Diff(applied, want)))
		applied = want
	}
}

// BenchmarkRender1000x10 is the pure rendering cost at that size.
func BenchmarkRender1000x10(b *testing.B) {
	svcs, eps := benchCluster(1000, 10)
	for b.Loop() {
		Render(svcs, eps)
	}
}

// benchSlices is benchCluster's endpoints as the EndpointSlice controller
// writes them: one slice per Service (10 endpoints fit in one).
func benchSlices(eps []*core.Endpoints) []*discovery.EndpointSlice {
	out := make([]*discovery.EndpointSlice, 0, len(eps))
	for _, ep := range eps {
		s := &discovery.EndpointSlice{ObjectMeta: meta.ObjectMeta{Namespace: ep.Namespace, Name: ep.Name + "-abcde",
			Labels: map[string]string{discovery.LabelServiceName: ep.Name}}, AddressType: discovery.AddressTypeIPv4}
		for _, ss := range ep.Subsets {
			for _, p := range ss.Ports {
				s.Ports = append(s.Ports, discovery.EndpointPort{Name: &p.Name, Port: &p.Port, Protocol: &p.Protocol})
			}
			for _, a := range ss.Addresses {
				s.Endpoints = append(s.Endpoints, discovery.Endpoint{Addresses: []string{a.IP}})
			}
		}
		out = append(out, s)
	}
	return out
}

// BenchmarkRenderFromSlices1000x10 is what a proxy sync computes from its
// cache at that size since the proxy reads EndpointSlices: join the
// slices per Service (EndpointsFromSlices), then Render. Compare with
// BenchmarkRender1000x10 in the same run.
func BenchmarkRenderFromSlices1000x10(b *testing.B) {
	svcs, eps := benchCluster(1000, 10)
	slices := benchSlices(eps)
	for b.Loop() {
		Render(svcs, EndpointsFromSlices(slices))
	}
}

// BenchmarkSliceChange1000x10 is BenchmarkEndpointChange1000x10 read
// from EndpointSlices: one Service's slice has an endpoint replaced; join,
// render everything, diff, apply the difference.
func BenchmarkSliceChange1000x10(b *testing.B) {
	requireRootNFT(b)
	ns := newNetNS(b)
	nft := &NFT{NetNS: ns}
	svcs, eps := benchCluster(1000, 10)
	slices := benchSlices(eps)
	ctx := context.Background()
	applied := Render(svcs, EndpointsFromSlices(slices))
	require.NoError(b, nft.Apply(ctx, applied.Script()))
	i := 0
	for b.Loop() {
		i++
		s := *slices[500]
		s.Endpoints = append([]discovery.Endpoint{{Addresses: []string{fmt.Sprintf("10.250.%d.%d", i/250%250, i%250+1)}}}, s.Endpoints[1:]...)
		slices[500] = &s
		want := Render(svcs, EndpointsFromSlices(slices))
		require.NoError(b, nft.Apply(ctx, Diff(applied, want)))
		applied = want
	}
}
