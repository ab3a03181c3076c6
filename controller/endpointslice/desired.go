package endpointslice

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	endpointsctl "github.com/orkit/orkit/controller/endpoints"
)

// group is the endpoints that share an address type and a port list: the
// content of one or more slices.
type group struct {
	addressType discovery.AddressType
	ports       []discovery.EndpointPort
	endpoints   []discovery.Endpoint
}

// key identifies a group: its address type and ports.
func (g *group) key() string { return groupKey(g.addressType, g.ports) }

func groupKey(t discovery.AddressType, ports []discovery.EndpointPort) string {
	var b strings.Builder
	b.WriteString(string(t))
	for _, p := range ports {
		fmt.Fprintf(&b, "|%s/%s/%d/%s", p.NameValue(), p.ProtocolValue(), p.PortValue(), p.AppProtocolValue())
	}
	return b.String()
}

// groups collects endpoints by address type and ports, in key order,
// each group's endpoints sorted by address, so equal input gives equal
// slices.
type groups map[string]*group

func (gs groups) add(t discovery.AddressType, ports []discovery.EndpointPort, ep discovery.Endpoint) {
	k := groupKey(t, ports)
	g := gs[k]
	if g == nil {
		g = &group{addressType: t, ports: ports}
		gs[k] = g
	}
	g.endpoints = append(g.endpoints, ep)
}

func (gs groups) sorted() []*group {
	out := make([]*group, 0, len(gs))
	for _, g := range gs {
		slices.SortFunc(g.endpoints, func(a, b discovery.Endpoint) int { return cmp.Compare(a.Addresses[0], b.Addresses[0]) })
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *group) int { return cmp.Compare(a.key(), b.key()) })
	return out
}

// addressType is the slice address type of ip; false when it is no IP.
func addressType(ip string) (discovery.AddressType, bool) {
	a, err := netip.ParseAddr(ip)
	switch {
	case err != nil:
		return "", false
	case a.Is4():
		return discovery.AddressTypeIPv4, true
	default:
		return discovery.AddressTypeIPv6, true
	}
}

// podGroups computes the endpoints of svc over the pods its selector
// matches: a pod with an IP that is not terminal is an endpoint (a
// terminating one too, marked so), with the ports it resolves.
func podGroups(svc *core.Service, pods []*core.Pod) []*group {
	gs := groups{}
	for _, pod := range pods {
		if pod.Status.PodIP == "" || core.IsPodTerminal(pod) {
			continue
		}
		ports, ok := podPorts(svc, pod)
		if !ok {
			continue
		}
		for _, ip := range podIPs(pod) {
			t, ok := addressType(ip)
			if !ok {
				continue
			}
			gs.add(t, ports, podEndpoint(svc, pod, ip))
		}
	}
	return gs.sorted()
}

// podIPs are the pod's addresses, one per family.
func podIPs(pod *core.Pod) []string {
	if len(pod.Status.PodIPs) == 0 {
		return []string{pod.Status.PodIP}
	}
	out := make([]string, 0, len(pod.Status.PodIPs))
	for _, ip := range pod.Status.PodIPs {
		out = append(out, ip.IP)
	}
	return out
}

// podEndpoint is the endpoint of pod at ip: ready when the pod is ready
// and not terminating, serving when it is ready, as Kubernetes reports
// them (publishNotReadyAddresses makes every endpoint ready and serving).
func podEndpoint(svc *core.Service, pod *core.Pod, ip string) discovery.Endpoint {
	terminating := pod.DeletionTimestamp != nil
	serving := core.IsPodReady(pod) || svc.Spec.PublishNotReadyAddresses
	ready := serving && (!terminating || svc.Spec.PublishNotReadyAddresses)
	ep := discovery.Endpoint{
		Addresses:  []string{ip},
		Conditions: discovery.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &core.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if n := pod.Spec.NodeName; n != "" {
		ep.NodeName = &n
	}
	if h := pod.Spec.Hostname; h != "" && pod.Spec.Subdomain == svc.Name {
		ep.Hostname = &h
	}
	return ep
}

// podPorts resolves each Service port for pod (a named targetPort from
// its container ports); ports the pod lacks are left out, and a pod that
// resolves none of several ports is no endpoint, as for Endpoints.
func podPorts(svc *core.Service, pod *core.Pod) ([]discovery.EndpointPort, bool) {
	var out []discovery.EndpointPort
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		port, ok := endpointsctl.ResolvePort(pod, sp)
		if !ok {
			continue
		}
		out = append(out, endpointPort(sp.Name, cmp.Or(sp.Protocol, core.ProtocolTCP), port, sp.AppProtocol))
	}
	if len(svc.Spec.Ports) > 0 && len(out) == 0 {
		return nil, false
	}
	slices.SortFunc(out, func(a, b discovery.EndpointPort) int { return cmp.Compare(*a.Name, *b.Name) })
	return out, true
}

func endpointPort(name string, proto core.Protocol, port int32, appProtocol *string) discovery.EndpointPort {
	return discovery.EndpointPort{Name: &name, Protocol: &proto, Port: &port, AppProtocol: appProtocol}
}

// mirrorGroups computes the slices mirroring an Endpoints object: each
// subset's addresses (ready) and notReadyAddresses (not ready) with the
// subset's ports; addresses that are no IP are left out.
func mirrorGroups(ep *core.Endpoints) []*group {
	gs := groups{}
	for _, ss := range ep.Subsets {
		ports := make([]discovery.EndpointPort, 0, len(ss.Ports))
		for _, p := range ss.Ports {
			ports = append(ports, endpointPort(p.Name, cmp.Or(p.Protocol, core.ProtocolTCP), p.Port, p.AppProtocol))
		}
		slices.SortFunc(ports, func(a, b discovery.EndpointPort) int { return cmp.Compare(*a.Name, *b.Name) })
		for _, list := range []struct {
			addrs []core.EndpointAddress
			ready bool
		}{{ss.Addresses, true}, {ss.NotReadyAddresses, false}} {
			for _, a := range list.addrs {
				t, ok := addressType(a.IP)
				if !ok {
					continue
				}
				gs.add(t, ports, mirroredEndpoint(a, list.ready))
			}
		}
	}
	return gs.sorted()
}

func mirroredEndpoint(a core.EndpointAddress, ready bool) discovery.Endpoint {
	ep := discovery.Endpoint{Addresses: []string{a.IP}, Conditions: discovery.EndpointConditions{Ready: &ready}, TargetRef: a.TargetRef,
		NodeName: a.NodeName}
	if a.Hostname != "" {
		h := a.Hostname
		ep.Hostname = &h
	}
	return ep
}
