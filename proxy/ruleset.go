package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/core"
)

// The names the proxy owns in nftables.
const (
	// TableFamily and TableName name the proxy's table.
	TableFamily = "ip"
	TableName   = "orkit-proxy"
	// MasqueradeMark is the packet mark bit that asks the postrouting
	// chain to masquerade (hairpin and node-port traffic).
	MasqueradeMark      = 0x4000
	serviceIPsMap       = "service-ips"
	nodePortsMap        = "service-nodeports"
	defaultAffinityTime = 10800
)

// Ruleset is the proxy's desired nftables state for a set of Services and
// Endpoints, in pieces that can be compared one by one: the chains and
// sets per Service port and endpoint, and the elements of the two
// dispatch maps. It is a plain value; Render makes one, Script and Diff
// turn one (or two) into an nft script.
type Ruleset struct {
	// Table is the table's name in family ip; empty means TableName.
	Table string
	// ServiceCIDRs are rejected (on output and forward) when no Service
	// rule translated them: with the host guard routing them to a dummy
	// device, a cluster IP without a Service port fails at once and
	// nothing leaves the host. Part of the table's base, written by
	// Script; Diff assumes it unchanged.
	ServiceCIDRs []netip.Prefix
	// Chains maps a chain name to its rules, one per line.
	Chains map[string]string
	// Sets maps a set name to its declaration (type, flags, timeout).
	Sets map[string]string
	// ServiceIPs maps "ip . proto . port" to a verdict.
	ServiceIPs map[string]string
	// NodePorts maps "proto . port" to a verdict.
	NodePorts map[string]string
}

// Endpoint is one ready backend of a Service port.
type Endpoint struct {
	IP   netip.Addr
	Port int32
}

// String returns "ip:port".
func (e Endpoint) String() string { return netip.AddrPortFrom(e.IP, uint16(e.Port)).String() }

// Render computes the Ruleset for services and their endpoints (matched by
// namespace and name). Only IPv4 cluster IPs are programmed; headless and
// ExternalName Services, ports without ready endpoints and malformed
// addresses are left out. It is a pure function of its arguments.
func Render(services []*core.Service, endpoints []*core.Endpoints) Ruleset {
	rs := Ruleset{Chains: map[string]string{}, Sets: map[string]string{}, ServiceIPs: map[string]string{}, NodePorts: map[string]string{}}
	for _, sp := range servicePorts(services, endpoints) {
		rs.addServicePort(sp)
	}
	return rs
}

// servicePort is one programmable Service port: the backend-neutral
// model both the nftables and the iptables rules are rendered from.
type servicePort struct {
	id       string // namespace/name:port/proto, names chains and comments
	ip       netip.Addr
	proto    string
	port     int32
	nodePort int32 // 0: none
	affinity int   // ClientIP affinity timeout in seconds; 0: none
	backends []Endpoint
}

// servicePorts lists the programmable ports of services in order.
func servicePorts(services []*core.Service, endpoints []*core.Endpoints) []servicePort {
	eps := make(map[string]*core.Endpoints, len(endpoints))
	for _, e := range endpoints {
		eps[e.Namespace+"/"+e.Name] = e
	}
	var out []servicePort
	for _, svc := range services {
		if svc.Spec.Type == core.ServiceTypeExternalName {
			continue
		}
		ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
		if err != nil || !ip.Is4() {
			continue
		}
		affinity := 0
		if svc.Spec.SessionAffinity == core.ServiceAffinityClientIP {
			affinity = defaultAffinityTime
			if c := svc.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil && *c.ClientIP.TimeoutSeconds > 0 {
				affinity = int(*c.ClientIP.TimeoutSeconds)
			}
		}
		external := svc.Spec.Type == core.ServiceTypeNodePort || svc.Spec.Type == core.ServiceTypeLoadBalancer
		for _, p := range svc.Spec.Ports {
			backends := ReadyEndpoints(eps[svc.Namespace+"/"+svc.Name], p)
			if len(backends) == 0 {
				continue
			}
			sp := servicePort{id: svc.Namespace + "/" + svc.Name + ":" + p.Name + "/" + proto(p.Protocol),
				ip: ip, proto: proto(p.Protocol), port: p.Port, affinity: affinity, backends: backends}
			if external && p.NodePort > 0 && p.NodePort <= 65535 {
				sp.nodePort = p.NodePort
			}
			out = append(out, sp)
		}
	}
	return out
}

// ReadyEndpoints returns the ready addresses of ep for the Service port sp
// (matched by port name and protocol), sorted and without duplicates.
func ReadyEndpoints(ep *core.Endpoints, sp core.ServicePort) []Endpoint {
	if ep == nil {
		return nil
	}
	seen := map[Endpoint]bool{}
	var out []Endpoint
	for _, ss := range ep.Subsets {
		for _, p := range ss.Ports {
			if p.Name != sp.Name || proto(p.Protocol) != proto(sp.Protocol) || p.Port <= 0 || p.Port > 65535 {
				continue
			}
			for _, a := range ss.Addresses {
				ip, err := netip.ParseAddr(a.IP)
				if err != nil || !ip.Is4() {
					continue
				}
				e := Endpoint{IP: ip, Port: p.Port}
				if !seen[e] {
					seen[e] = true
					out = append(out, e)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if c := out[i].IP.Compare(out[j].IP); c != 0 {
			return c < 0
		}
		return out[i].Port < out[j].Port
	})
	return out
}

func proto(p core.Protocol) string {
	switch p {
	case core.ProtocolUDP:
		return "udp"
	case core.ProtocolSCTP:
		return "sctp"
	}
	return "tcp"
}

// addServicePort adds the chains, sets and map elements of one port.
func (rs *Ruleset) addServicePort(sp servicePort) {
	id := sp.id
	svcChain := "svc-" + hash(id)
	comment := fmt.Sprintf(" comment %q", id)
	var svcRules []string
	targets := make([]string, len(sp.backends))
	for i, b := range sp.backends {
		epChain := "ep-" + hash(id+"|"+b.String())
		targets[i] = epChain
		var ep []string
		ep = append(ep, fmt.Sprintf("ip saddr %s meta mark set meta mark | 0x%x", b.IP, MasqueradeMark))
		if sp.affinity > 0 {
			set := "aff-" + hash(id+"|"+b.String())
			rs.Sets[set] = fmt.Sprintf("type ipv4_addr; flags dynamic,timeout; timeout %ds;", sp.affinity)
			svcRules = append(svcRules, fmt.Sprintf("ip saddr @%s goto %s", set, epChain))
			ep = append(ep, fmt.Sprintf("update @%s { ip saddr }", set))
		}
		ep = append(ep, fmt.Sprintf("meta l4proto %s dnat to %s%s", sp.proto, b, comment))
		rs.Chains[epChain] = strings.Join(ep, "\n")
	}
	if len(targets) == 1 {
		svcRules = append(svcRules, "goto "+targets[0]+comment)
	} else {
		var vm []string
		for i, t := range targets {
			vm = append(vm, strconv.Itoa(i)+" : goto "+t)
		}
		svcRules = append(svcRules, fmt.Sprintf("numgen random mod %d vmap { %s }%s", len(targets), strings.Join(vm, ", "), comment))
	}
	rs.Chains[svcChain] = strings.Join(svcRules, "\n")
	rs.ServiceIPs[fmt.Sprintf("%s . %s . %d", sp.ip, sp.proto, sp.port)] = "goto " + svcChain
	if sp.nodePort > 0 {
		ext := "ext-" + hash(id)
		rs.Chains[ext] = fmt.Sprintf("meta mark set meta mark | 0x%x\ngoto %s", MasqueradeMark, svcChain)
		rs.NodePorts[fmt.Sprintf("%s . %d", sp.proto, sp.nodePort)] = "goto " + ext
	}
}

// hash names a chain or set after id: 16 hex digits, stable across runs.
func hash(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:8])
}
