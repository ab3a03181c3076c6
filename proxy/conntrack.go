package proxy

import (
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/orkit/orkit/api/core"
)

// Conntrack removes UDP connection-tracking entries, which would otherwise
// keep steering a client's datagrams where they went before a rule
// changed: conntrack decides NAT once per flow, and a UDP flow lives as
// long as its client keeps sending (a resolver retrying with one source
// port never reaches a DNS Service whose endpoints appeared after its
// first try). kube-proxy clears the same entries.
type Conntrack interface {
	// DeleteUDP removes, in one pass over the table, the UDP entries
	// matching any of flows. Removing nothing is not an error.
	DeleteUDP(flows []UDPFlow) error
}

// UDPFlow selects UDP conntrack entries: original destination Dst (any
// address when invalid) and Port, and, when Backend is valid, a reply
// from Backend (the endpoint the entry was translated to).
type UDPFlow struct {
	Dst     netip.Addr
	Port    uint16
	Backend netip.Addr
}

// NetlinkConntrack is the Conntrack of the calling network namespace,
// through netlink. It needs CAP_NET_ADMIN.
type NetlinkConntrack struct{}

// DeleteUDP implements Conntrack.
func (NetlinkConntrack) DeleteUDP(flows []UDPFlow) error {
	if len(flows) == 0 {
		return nil
	}
	filters := make([]netlink.CustomConntrackFilter, 0, len(flows))
	for _, fl := range flows {
		f := &netlink.ConntrackFilter{}
		if err := f.AddProtocol(unix.IPPROTO_UDP); err != nil {
			return err
		}
		if err := f.AddPort(netlink.ConntrackOrigDstPort, fl.Port); err != nil {
			return err
		}
		if fl.Dst.IsValid() {
			if err := f.AddIP(netlink.ConntrackOrigDstIP, net.IP(fl.Dst.AsSlice())); err != nil {
				return err
			}
		}
		if fl.Backend.IsValid() {
			if err := f.AddIP(netlink.ConntrackReplySrcIP, net.IP(fl.Backend.AsSlice())); err != nil {
				return err
			}
		}
		filters = append(filters, f)
	}
	_, err := netlink.ConntrackDeleteFilters(netlink.ConntrackTable, unix.AF_INET, filters...)
	return err
}

// udpTarget is where clients send a UDP Service's datagrams: a cluster
// IP and port, or (addr invalid) a node port on any address.
type udpTarget struct {
	addr netip.Addr
	port uint16
}

// udpBackends maps every served UDP target to its ready backends' IPs.
func udpBackends(services []*core.Service, endpoints []*core.Endpoints) map[udpTarget]map[netip.Addr]bool {
	out := map[udpTarget]map[netip.Addr]bool{}
	for _, sp := range servicePorts(services, endpoints) {
		if sp.proto != "udp" {
			continue
		}
		ips := map[netip.Addr]bool{}
		for _, b := range sp.backends {
			ips[b.IP] = true
		}
		out[udpTarget{sp.ip, uint16(sp.port)}] = ips
		if sp.nodePort > 0 {
			out[udpTarget{port: uint16(sp.nodePort)}] = ips
		}
	}
	return out
}

// staleUDP lists the entries to remove for what changed from before to
// now, as kube-proxy does: a target that gained its first backends loses
// every entry (they were made while nothing answered), and a backend that
// left a target loses the entries that reach it through that target.
func staleUDP(before, now map[udpTarget]map[netip.Addr]bool) []UDPFlow {
	var out []UDPFlow
	for t, ips := range now {
		if len(before[t]) == 0 && len(ips) > 0 {
			out = append(out, UDPFlow{Dst: t.addr, Port: t.port})
		}
	}
	for t, ips := range before {
		for ip := range ips {
			if !now[t][ip] {
				out = append(out, UDPFlow{Dst: t.addr, Port: t.port, Backend: ip})
			}
		}
	}
	return out
}
