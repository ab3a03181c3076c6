package proxy

import (
	"net/netip"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestStaleUDP(t *testing.T) {
	dns := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "dns", Namespace: "kube-system"},
		Spec: core.ServiceSpec{ClusterIP: "10.96.0.10", Type: core.ServiceTypeNodePort, Ports: []core.ServicePort{
			{Name: "dns", Port: 53, Protocol: core.ProtocolUDP, NodePort: 30053},
			{Name: "dns-tcp", Port: 53, Protocol: core.ProtocolTCP}}}}
	eps := func(ips ...string) []*core.Endpoints {
		var addrs []core.EndpointAddress
		for _, ip := range ips {
			addrs = append(addrs, core.EndpointAddress{IP: ip})
		}
		return []*core.Endpoints{{ObjectMeta: meta.ObjectMeta{Name: "dns", Namespace: "kube-system"},
			Subsets: []core.EndpointSubset{{Addresses: addrs, Ports: []core.EndpointPort{
				{Name: "dns", Port: 5353, Protocol: core.ProtocolUDP}, {Name: "dns-tcp", Port: 5353, Protocol: core.ProtocolTCP}}}}}}
	}
	cluster := netip.MustParseAddr("10.96.0.10")
	a, b := netip.MustParseAddr("10.244.1.2"), netip.MustParseAddr("10.244.1.3")
	tests := []struct {
		name        string
		before, now []*core.Endpoints
		want        []UDPFlow
	}{
		{"first backends: every entry of the cluster IP and node port", nil, eps("10.244.1.2"),
			[]UDPFlow{{Port: 30053}, {Dst: cluster, Port: 53}}},
		{"unchanged: nothing", eps("10.244.1.2"), eps("10.244.1.2"), nil},
		{"a backend added: nothing (new flows are balanced to it)", eps("10.244.1.2"), eps("10.244.1.2", "10.244.1.3"), nil},
		{"a backend left: the entries reaching it", eps("10.244.1.2", "10.244.1.3"), eps("10.244.1.2"),
			[]UDPFlow{{Port: 30053, Backend: b}, {Dst: cluster, Port: 53, Backend: b}}},
		{"last backend left: the entries reaching it", eps("10.244.1.2"), nil,
			[]UDPFlow{{Port: 30053, Backend: a}, {Dst: cluster, Port: 53, Backend: a}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := staleUDP(udpBackends([]*core.Service{dns}, tc.before), udpBackends([]*core.Service{dns}, tc.now))
			sort.Slice(got, func(i, j int) bool { return got[i].Dst.Less(got[j].Dst) })
			assert.Equal(t, tc.want, got)
		})
	}
}
