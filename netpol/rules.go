package netpol

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/networking"
)

// allPorts is the span of every port: a protocol without a port.
var allPorts = span{0, 65535}

// ingressRule renders one ingress rule of np for the receiving pod p.
func (r *renderer) ingressRule(np *networking.NetworkPolicy, rule *networking.NetworkPolicyIngressRule, p podInfo) []string {
	var srcs spans
	if len(rule.From) > 0 {
		if srcs, _ = r.peers(np, rule.From, "from"); len(srcs) == 0 {
			return nil // the peers match nothing (yet)
		}
	}
	if len(rule.Ports) == 0 {
		return matchLines("saddr", srcs, nil)
	}
	ports := portsOf(rule.Ports, true, func(name string, proto core.Protocol) (int32, bool) { return namedPort(p.pod, name, proto) })
	return matchLines("saddr", srcs, ports)
}

// egressRule renders one egress rule of np for a sending pod. Numbered
// ports apply to every destination; a named port only to the destination
// pods (of the peers, or every pod without peers) that have it.
func (r *renderer) egressRule(np *networking.NetworkPolicy, rule *networking.NetworkPolicyEgressRule) []string {
	dsts, cands := spans(nil), r.pods
	if len(rule.To) > 0 {
		if dsts, cands = r.peers(np, rule.To, "to"); len(dsts) == 0 {
			return nil
		}
	}
	if len(rule.Ports) == 0 {
		return matchLines("daddr", dsts, nil)
	}
	var lines []string
	if ports := portsOf(rule.Ports, true, nil); len(ports) > 0 {
		lines = matchLines("daddr", dsts, ports)
	}
	for _, q := range cands {
		named := portsOf(rule.Ports, false, func(name string, proto core.Protocol) (int32, bool) { return namedPort(q.pod, name, proto) })
		if len(named) > 0 {
			lines = append(lines, matchLines("daddr", spans{{q.ip, q.ip}}, named)...)
		}
	}
	return lines
}

// peers returns the addresses of peers and the pods among them (the pods
// of the selectors and those inside the ipBlocks).
func (r *renderer) peers(np *networking.NetworkPolicy, peers []networking.NetworkPolicyPeer, where string) (spans, []podInfo) {
	var addrs spans
	var pods []podInfo
	seen := map[uint32]bool{}
	for i, peer := range peers {
		path := fmt.Sprintf("%s[%d]", where, i)
		var in func(podInfo) bool
		if b := peer.IPBlock; b != nil {
			block, ok := r.ipBlock(np, b, path)
			if !ok {
				continue
			}
			addrs = addrs.union(block)
			in = func(p podInfo) bool { return block.contains(p.ip) }
		} else {
			in = func(p podInfo) bool { return r.peerSelects(np, &peer, p, path) }
		}
		for _, p := range r.pods {
			if !seen[p.ip] && in(p) {
				seen[p.ip] = true
				pods = append(pods, p)
				if peer.IPBlock == nil {
					addrs = addrs.add(p.ip, p.ip)
				}
			}
		}
	}
	return addrs, pods
}

// peerSelects reports whether a selector peer picks p: podSelector alone
// within the policy's namespace, namespaceSelector alone every pod of the
// matching namespaces, both the matching pods there.
func (r *renderer) peerSelects(np *networking.NetworkPolicy, peer *networking.NetworkPolicyPeer, p podInfo, path string) bool {
	if peer.NamespaceSelector == nil {
		if p.pod.Namespace != np.Namespace {
			return false
		}
	} else if !r.matches(peer.NamespaceSelector, r.nsLabels[p.pod.Namespace], np, path+".namespaceSelector") {
		return false
	}
	if peer.PodSelector == nil {
		return peer.NamespaceSelector != nil
	}
	return r.matches(peer.PodSelector, p.pod.Labels, np, path+".podSelector")
}

// ipBlock is the IPv4 range of b without its excepts.
func (r *renderer) ipBlock(np *networking.NetworkPolicy, b *networking.IPBlock, path string) (spans, bool) {
	p, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		r.problem(np, "%s.ipBlock.cidr %q: %v", path, b.CIDR, err)
		return nil, false
	}
	whole, ok := prefixSpan(p)
	if !ok {
		r.problem(np, "%s.ipBlock.cidr %q: not IPv4 (orkit's pod network is IPv4 only)", path, b.CIDR)
		return nil, false
	}
	out := spans{whole}
	for _, e := range b.Except {
		ep, err := netip.ParsePrefix(e)
		if err != nil {
			r.problem(np, "%s.ipBlock.except %q: %v", path, e, err)
			continue
		}
		if x, ok := prefixSpan(ep); ok {
			out = out.minus(x.lo, x.hi)
		}
	}
	return out, true
}

// portsOf maps each protocol (nft's name) of ports to its port spans:
// numbers and whole protocols when numbered is set, named ports when named
// (which resolves them) is not nil; a named port it cannot resolve is
// skipped.
func portsOf(ports []networking.NetworkPolicyPort, numbered bool, named func(string, core.Protocol) (int32, bool)) map[string]spans {
	out := map[string]spans{}
	for _, p := range ports {
		proto := core.ProtocolTCP
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		key := strings.ToLower(string(proto))
		switch {
		case p.Port == nil:
			if !numbered {
				continue
			}
			out[key] = out[key].add(allPorts.lo, allPorts.hi)
		case p.Port.IsString:
			if named == nil {
				continue
			}
			if n, ok := named(p.Port.StrVal, proto); ok {
				out[key] = out[key].add(uint32(n), uint32(n))
			}
		case numbered:
			end := p.Port.IntVal
			if p.EndPort != nil && *p.EndPort > end {
				end = *p.EndPort
			}
			out[key] = out[key].add(uint32(p.Port.IntVal), uint32(end))
		}
	}
	return out
}

// namedPort finds the container port of pod named name with protocol
// proto (TCP when the container port leaves it empty).
func namedPort(pod *core.Pod, name string, proto core.Protocol) (int32, bool) {
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			cpProto := cp.Protocol
			if cpProto == "" {
				cpProto = core.ProtocolTCP
			}
			if cp.Name == name && cpProto == proto {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// matchLines renders "allow" rules: addresses in field (nil: any) and,
// per protocol, ports (nil map: any protocol and port).
func matchLines(field string, addrs spans, ports map[string]spans) []string {
	prefix := ""
	if addrs != nil {
		prefix = fmt.Sprintf("ip %s %s ", field, addrSet(addrs))
	}
	if ports == nil {
		return []string{prefix + "return"}
	}
	protos := make([]string, 0, len(ports))
	for p := range ports {
		protos = append(protos, p)
	}
	sort.Strings(protos)
	var lines []string
	for _, proto := range protos {
		s := ports[proto]
		if len(s) == 1 && s[0] == allPorts {
			lines = append(lines, fmt.Sprintf("%smeta l4proto %s return", prefix, proto))
			continue
		}
		lines = append(lines, fmt.Sprintf("%smeta l4proto %s th dport %s return", prefix, proto, portSet(s)))
	}
	return lines
}
