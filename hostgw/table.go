package hostgw

import (
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// RouteProtocol marks the routes this package owns (`ip route show proto
// 79` lists them). It is unassigned in iproute2's rt_protos, and other
// route owners (the kernel, DHCP, bird, the host guard's static routes)
// use their own, so a Table never touches their routes.
const RouteProtocol = 79

// Table is the host-gw routes in the main routing table of one network
// namespace: those carrying RouteProtocol. Safe for concurrent use (each
// call is one netlink request); it holds the handle until Close.
type Table struct {
	h *netlink.Handle
}

// NewTable returns the Table of the calling process's network namespace
// (the namespace is fixed when the handle is made). It needs
// CAP_NET_ADMIN for Replace and Delete. Errors wrap ErrRoute.
func NewTable() (*Table, error) {
	h, err := netlink.NewHandle(unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("%w: netlink handle: %w", ErrRoute, err)
	}
	return &Table{h: h}, nil
}

// NewTableFor returns the Table the netlink handle h reaches (for a
// handle made in another network namespace, netlink.NewHandleAt); the
// Table does not close h.
func NewTableFor(h *netlink.Handle) *Table { return &Table{h: h} }

// Close releases the handle NewTable made.
func (t *Table) Close() { t.h.Close() }

// List returns the routes of the table that carry RouteProtocol, both
// address families; Node is empty. Errors wrap ErrRoute.
func (t *Table) List() ([]Route, error) {
	filter := &netlink.Route{Protocol: RouteProtocol, Table: unix.RT_TABLE_MAIN}
	rs, err := t.h.RouteListFiltered(netlink.FAMILY_ALL, filter, netlink.RT_FILTER_PROTOCOL|netlink.RT_FILTER_TABLE)
	if err != nil {
		return nil, fmt.Errorf("%w: list: %w", ErrRoute, err)
	}
	var out []Route
	for _, r := range rs {
		if r.Dst == nil || r.Gw == nil {
			continue
		}
		dst, ok1 := netipPrefix(r.Dst)
		via, ok2 := netip.AddrFromSlice(r.Gw)
		if ok1 && ok2 {
			out = append(out, Route{Dst: dst, Via: via.Unmap()})
		}
	}
	return out, nil
}

// Replace adds r, or changes the gateway of the route to r.Dst this
// package owns. The kernel refuses a gateway that is not on a link of
// this host (ENETUNREACH): host-gw needs the nodes on one layer-2
// network. Errors wrap ErrRoute and name the route.
func (t *Table) Replace(r Route) error {
	if err := t.h.RouteReplace(kernelRoute(r)); err != nil {
		return fmt.Errorf("%w: replace %s: %w", ErrRoute, r, err)
	}
	return nil
}

// Delete removes the route to r.Dst this package owns; a route already
// gone is no error. Errors wrap ErrRoute and name the route.
func (t *Table) Delete(r Route) error {
	err := t.h.RouteDel(kernelRoute(r))
	if err != nil && !errors.Is(err, unix.ESRCH) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%w: delete %s: %w", ErrRoute, r, err)
	}
	return nil
}

func kernelRoute(r Route) *netlink.Route {
	fam := netlink.FAMILY_V4
	if r.Dst.Addr().Is6() {
		fam = netlink.FAMILY_V6
	}
	return &netlink.Route{
		Dst:      &net.IPNet{IP: r.Dst.Addr().AsSlice(), Mask: net.CIDRMask(r.Dst.Bits(), r.Dst.Addr().BitLen())},
		Gw:       r.Via.AsSlice(),
		Family:   fam,
		Protocol: RouteProtocol,
		Table:    unix.RT_TABLE_MAIN,
		Type:     unix.RTN_UNICAST,
		Scope:    netlink.SCOPE_UNIVERSE,
	}
}

func netipPrefix(n *net.IPNet) (netip.Prefix, bool) {
	a, ok := netip.AddrFromSlice(n.IP)
	if !ok {
		return netip.Prefix{}, false
	}
	ones, _ := n.Mask.Size()
	return netip.PrefixFrom(a.Unmap(), ones).Masked(), true
}
