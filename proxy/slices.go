package proxy

import (
	"cmp"
	"slices"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/meta"
)

// EndpointsFromSlices joins EndpointSlices into one Endpoints value per
// Service (by their kubernetes.io/service-name label), the form Render
// and the DNS zone read: each slice a subset, its ready endpoints (an
// unknown Ready counts as ready) as addresses, the others as not-ready
// addresses, the first address of each endpoint. FQDN slices and slices
// without a Service name are left out, as kube-proxy leaves them.
func EndpointsFromSlices(in []*discovery.EndpointSlice) []*core.Endpoints {
	byService := map[string]*core.Endpoints{}
	for _, s := range in {
		svc := s.Labels[discovery.LabelServiceName]
		if svc == "" || s.AddressType == discovery.AddressTypeFQDN {
			continue
		}
		key := s.Namespace + "/" + svc
		ep := byService[key]
		if ep == nil {
			ep = &core.Endpoints{ObjectMeta: meta.ObjectMeta{Namespace: s.Namespace, Name: svc}}
			byService[key] = ep
		}
		ep.Subsets = append(ep.Subsets, subsetOf(s))
	}
	out := make([]*core.Endpoints, 0, len(byService))
	for _, ep := range byService {
		out = append(out, ep)
	}
	slices.SortFunc(out, func(a, b *core.Endpoints) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func subsetOf(s *discovery.EndpointSlice) core.EndpointSubset {
	var ss core.EndpointSubset
	for _, p := range s.Ports {
		if p.Port == nil {
			continue // "all ports": nothing a Service port can name
		}
		ss.Ports = append(ss.Ports, core.EndpointPort{Name: p.NameValue(), Port: *p.Port,
			Protocol: p.ProtocolValue(), AppProtocol: p.AppProtocol})
	}
	for i := range s.Endpoints {
		e := &s.Endpoints[i]
		if len(e.Addresses) == 0 {
			continue
		}
		a := core.EndpointAddress{IP: e.Addresses[0], Hostname: e.HostnameValue(), NodeName: e.NodeName, TargetRef: e.TargetRef}
		if e.IsReady() {
			ss.Addresses = append(ss.Addresses, a)
		} else {
			ss.NotReadyAddresses = append(ss.NotReadyAddresses, a)
		}
	}
	return ss
}
