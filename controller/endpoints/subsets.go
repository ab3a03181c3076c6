package endpoints

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/core"
)

// ShouldInclude reports whether pod belongs in a Service's Endpoints: it
// has an IP, is not terminal, and is not being deleted (unless the
// Service publishes not-ready addresses).
func ShouldInclude(pod *core.Pod, publishNotReady bool) bool {
	if pod.Status.PodIP == "" || core.IsPodTerminal(pod) {
		return false
	}
	return pod.DeletionTimestamp == nil || publishNotReady
}

// ResolvePort returns the pod port a Service port targets: a number as
// is (the port itself when unset), a name looked up in the pod's
// container ports with the same protocol.
func ResolvePort(pod *core.Pod, sp *core.ServicePort) (int32, bool) {
	tp := sp.TargetPort
	if !tp.IsString {
		if tp.IntVal == 0 {
			return sp.Port, true
		}
		return tp.IntVal, true
	}
	proto := cmp.Or(sp.Protocol, core.ProtocolTCP)
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == tp.StrVal && cmp.Or(p.Protocol, core.ProtocolTCP) == proto {
				return p.ContainerPort, true
			}
		}
	}
	return 0, false
}

// Subsets computes the Endpoints subsets of svc over pods: addresses
// grouped by the ports each pod resolves, ready ones apart from the
// others, everything sorted so that equal input gives equal output.
func Subsets(svc *core.Service, pods []*core.Pod) []core.EndpointSubset {
	type group struct {
		ports           []core.EndpointPort
		ready, notReady []core.EndpointAddress
	}
	groups := map[string]*group{}
	for _, pod := range pods {
		if !ShouldInclude(pod, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		ports, ok := podPorts(svc, pod)
		if !ok {
			continue
		}
		key := portsKey(ports)
		g := groups[key]
		if g == nil {
			g = &group{ports: ports}
			groups[key] = g
		}
		addr := address(svc, pod)
		if core.IsPodReady(pod) || svc.Spec.PublishNotReadyAddresses {
			g.ready = append(g.ready, addr)
		} else {
			g.notReady = append(g.notReady, addr)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []core.EndpointSubset
	for _, k := range keys {
		g := groups[k]
		byIP := func(a, b core.EndpointAddress) int { return cmp.Compare(a.IP, b.IP) }
		slices.SortFunc(g.ready, byIP)
		slices.SortFunc(g.notReady, byIP)
		out = append(out, core.EndpointSubset{Addresses: g.ready, NotReadyAddresses: g.notReady, Ports: g.ports})
	}
	return out
}

// podPorts resolves every Service port for pod. A port the pod lacks (a
// named targetPort none of its containers has) is left out of its
// subset, so the pod serves only the ports it has, as in Kubernetes
// (whose subsets are address×port pairs repacked); a pod that resolves
// none of the Service's ports is left out altogether.
func podPorts(svc *core.Service, pod *core.Pod) ([]core.EndpointPort, bool) {
	var out []core.EndpointPort
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		port, ok := ResolvePort(pod, sp)
		if !ok {
			continue
		}
		out = append(out, core.EndpointPort{Name: sp.Name, Port: port, Protocol: cmp.Or(sp.Protocol, core.ProtocolTCP), AppProtocol: sp.AppProtocol})
	}
	if len(svc.Spec.Ports) > 0 && len(out) == 0 {
		return nil, false
	}
	slices.SortFunc(out, func(a, b core.EndpointPort) int { return cmp.Compare(a.Name, b.Name) })
	return out, true
}

func portsKey(ports []core.EndpointPort) string {
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, "%s/%d/%s,", p.Name, p.Port, p.Protocol)
	}
	return b.String()
}

func address(svc *core.Service, pod *core.Pod) core.EndpointAddress {
	node := pod.Spec.NodeName
	a := core.EndpointAddress{IP: pod.Status.PodIP,
		TargetRef: &core.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}}
	if node != "" {
		a.NodeName = &node
	}
	if pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name {
		a.Hostname = pod.Spec.Hostname
	}
	return a
}
