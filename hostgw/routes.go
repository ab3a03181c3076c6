package hostgw

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"

	"github.com/orkit/orkit/api/core"
)

// Route is one host-gw route: Dst (a node's pod CIDR) via Via (that
// node's host address). Node names the Node it is for (not part of the
// kernel's route; empty for routes read back from the kernel).
type Route struct {
	Dst  netip.Prefix
	Via  netip.Addr
	Node string
}

// String is "10.244.2.0/24 via 10.250.0.12".
func (r Route) String() string { return fmt.Sprintf("%s via %s", r.Dst, r.Via) }

// Skipped says why a Node (or one of its pod CIDRs) got no route.
type Skipped struct {
	Node, Reason string
}

// Desired returns the routes node self needs, sorted by destination: for
// every other Node with pod CIDRs and an InternalIP of the same address
// family, one route per pod CIDR via that InternalIP. It never routes:
//
//   - self's own pod CIDRs, or a CIDR overlapping one of them;
//   - via a loopback or unspecified address, or via self's own address
//     (nodes sharing self's host: their pods are on this host already);
//   - a CIDR two Nodes claim (the lexically first Node keeps it; node IPAM
//     never hands one out twice, so this is a stale or hand-made Node);
//   - malformed CIDRs or addresses.
//
// What it leaves out is listed in skipped, for the caller to log.
func Desired(self string, nodes []*core.Node) (routes []Route, skipped []Skipped) {
	sorted := slices.Clone(nodes)
	slices.SortFunc(sorted, func(a, b *core.Node) int { return cmp.Compare(a.Name, b.Name) })
	var own []netip.Prefix
	var ownIPs []netip.Addr
	for _, n := range sorted {
		if n.Name == self {
			own, _ = podCIDRs(n)
			ownIPs = internalIPs(n)
		}
	}
	taken := map[netip.Prefix]string{}
	for _, n := range sorted {
		if n.Name == self {
			continue
		}
		cidrs, bad := podCIDRs(n)
		for _, b := range bad {
			skipped = append(skipped, Skipped{n.Name, fmt.Sprintf("pod CIDR %q is malformed", b)})
		}
		for _, p := range cidrs {
			r, why := routeFor(n, p, own, ownIPs, taken)
			if why != "" {
				skipped = append(skipped, Skipped{n.Name, fmt.Sprintf("pod CIDR %s: %s", p, why)})
				continue
			}
			taken[p] = n.Name
			routes = append(routes, r)
		}
	}
	slices.SortFunc(routes, func(a, b Route) int { return cmp.Compare(a.Dst.String(), b.Dst.String()) })
	return routes, skipped
}

// routeFor is the route to n's pod CIDR p, or why there is none.
func routeFor(n *core.Node, p netip.Prefix, own []netip.Prefix, ownIPs []netip.Addr, taken map[netip.Prefix]string) (Route, string) {
	if other, ok := taken[p]; ok {
		return Route{}, "also claimed by node " + other
	}
	for _, o := range own {
		if o.Overlaps(p) {
			return Route{}, "overlaps this node's pod CIDR " + o.String()
		}
	}
	var via netip.Addr
	for _, ip := range internalIPs(n) {
		if ip.Is4() == p.Addr().Is4() {
			via = ip
			break
		}
	}
	switch {
	case !via.IsValid():
		return Route{}, "no InternalIP of its address family"
	case via.IsLoopback() || via.IsUnspecified():
		return Route{}, "InternalIP " + via.String() + " is not reachable from another host"
	case slices.Contains(ownIPs, via):
		return Route{}, "InternalIP " + via.String() + " is this node's own (the nodes share a host)"
	}
	return Route{Dst: p, Via: via, Node: n.Name}, ""
}

// podCIDRs returns n's pod CIDRs (spec.podCIDRs, else spec.podCIDR),
// masked, and those that do not parse.
func podCIDRs(n *core.Node) (ok []netip.Prefix, bad []string) {
	list := n.Spec.PodCIDRs
	if len(list) == 0 && n.Spec.PodCIDR != "" {
		list = []string{n.Spec.PodCIDR}
	}
	for _, s := range list {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			bad = append(bad, s)
			continue
		}
		ok = append(ok, p.Masked())
	}
	return ok, bad
}

// internalIPs returns n's InternalIP addresses, in status order.
func internalIPs(n *core.Node) []netip.Addr {
	var ips []netip.Addr
	for _, a := range n.Status.Addresses {
		if a.Type != core.NodeInternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil {
			ips = append(ips, ip.Unmap())
		}
	}
	return ips
}

// Diff returns what to replace and what to delete to turn the routes
// current (read back from the table) into want.
func Diff(current, want []Route) (replace, remove []Route) {
	have := map[netip.Prefix]netip.Addr{}
	for _, r := range current {
		have[r.Dst] = r.Via
	}
	wanted := map[netip.Prefix]bool{}
	for _, r := range want {
		wanted[r.Dst] = true
		if via, ok := have[r.Dst]; !ok || via != r.Via {
			replace = append(replace, r)
		}
	}
	for _, r := range current {
		if !wanted[r.Dst] {
			remove = append(remove, r)
		}
	}
	return replace, remove
}
