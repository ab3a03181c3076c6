package proxy

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/meta"
)

func TestEndpointsFromSlices(t *testing.T) {
	name, port, udp := "dns", int32(53), core.ProtocolUDP
	yes, no := true, false
	slice := func(svc string, t discovery.AddressType, eps ...discovery.Endpoint) *discovery.EndpointSlice {
		l := map[string]string{}
		if svc != "" {
			l[discovery.LabelServiceName] = svc
		}
		return &discovery.EndpointSlice{ObjectMeta: meta.ObjectMeta{Namespace: "kube-system", Labels: l}, AddressType: t, Endpoints: eps,
			Ports: []discovery.EndpointPort{{Name: &name, Port: &port, Protocol: &udp}, {Name: new(string)}}}
	}
	got := EndpointsFromSlices([]*discovery.EndpointSlice{
		slice("kube-dns", discovery.AddressTypeIPv4, discovery.Endpoint{Addresses: []string{"10.0.0.1"}, Conditions: discovery.EndpointConditions{Ready: &yes}},
			discovery.Endpoint{Addresses: []string{"10.0.0.2"}, Conditions: discovery.EndpointConditions{Ready: &no}}),
		slice("kube-dns", discovery.AddressTypeIPv4, discovery.Endpoint{Addresses: []string{"10.0.0.3"}}), // unknown: ready
		slice("kube-dns", discovery.AddressTypeFQDN, discovery.Endpoint{Addresses: []string{"dns.example.com"}}),
		slice("", discovery.AddressTypeIPv4, discovery.Endpoint{Addresses: []string{"10.0.0.9"}}),
	})
	ports := []core.EndpointPort{{Name: "dns", Port: 53, Protocol: core.ProtocolUDP}}
	assert.Equal(t, []*core.Endpoints{{ObjectMeta: meta.ObjectMeta{Namespace: "kube-system", Name: "kube-dns"}, Subsets: []core.EndpointSubset{
		{Addresses: []core.EndpointAddress{{IP: "10.0.0.1"}}, NotReadyAddresses: []core.EndpointAddress{{IP: "10.0.0.2"}}, Ports: ports},
		{Addresses: []core.EndpointAddress{{IP: "10.0.0.3"}}, Ports: ports},
	}}}, got)
	backends := ReadyEndpoints(got[0], core.ServicePort{Name: "dns", Port: 53, Protocol: core.ProtocolUDP})
	assert.Len(t, backends, 2)
}
