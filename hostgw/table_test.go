package hostgw

import (
	"net"
	"net/netip"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/orkit/orkit/internal/testenv"
)

// privateNetns makes a network namespace for the test (closed at its
// end) with a bridge "host0" (this kernel may lack the dummy driver) at 10.250.0.11/24, and returns a netlink
// handle into it. The test's own thread stays in its namespace.
func privateNetns(t *testing.T) *netlink.Handle {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Unavailable(t, "root (the test makes a network namespace)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	require.NoError(t, err)
	defer orig.Close()
	ns, err := netns.New()
	require.NoError(t, err)
	require.NoError(t, netns.Set(orig))
	t.Cleanup(func() { ns.Close() })
	h, err := netlink.NewHandleAt(ns)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	require.NoError(t, h.LinkAdd(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "host0"}}))
	l, err := h.LinkByName("host0")
	require.NoError(t, err)
	addr, err := netlink.ParseAddr("10.250.0.11/24")
	require.NoError(t, err)
	require.NoError(t, h.AddrAdd(l, addr))
	require.NoError(t, h.LinkSetUp(l))
	return h
}

// TestTableInNetns applies routes in a private network namespace: they
// carry RouteProtocol, a gateway off every link is refused, and a route
// of another owner to another prefix is neither listed nor removed.
func TestTableInNetns(t *testing.T) {
	h := privateNetns(t)
	l, err := h.LinkByName("host0")
	require.NoError(t, err)
	_, other, _ := net.ParseCIDR("10.99.0.0/24")
	require.NoError(t, h.RouteAdd(&netlink.Route{Dst: other, Gw: net.ParseIP("10.250.0.1"), LinkIndex: l.Attrs().Index,
		Protocol: unix.RTPROT_STATIC}))
	tab := NewTableFor(h)

	changed, err := Apply(tab, []Route{rt("10.244.2.0/24", "10.250.0.12", "b"), rt("10.244.3.0/24", "10.250.0.13", "c")})
	require.NoError(t, err)
	assert.Len(t, changed, 2)
	got, err := tab.List()
	require.NoError(t, err)
	assert.ElementsMatch(t, []Route{{Dst: netip.MustParsePrefix("10.244.2.0/24"), Via: netip.MustParseAddr("10.250.0.12")},
		{Dst: netip.MustParsePrefix("10.244.3.0/24"), Via: netip.MustParseAddr("10.250.0.13")}}, got)
	kr, err := h.RouteGet(net.ParseIP("10.244.3.7"))
	require.NoError(t, err)
	require.Len(t, kr, 1)
	assert.Equal(t, "10.250.0.13", kr[0].Gw.String(), "the kernel routes a pod IP of node c via c")

	// c moves, b goes away, d's gateway is on no link of this host.
	changed, err = Apply(tab, []Route{rt("10.244.3.0/24", "10.250.0.23", "c"), rt("10.244.4.0/24", "192.0.2.99", "d")})
	require.ErrorIs(t, err, ErrRoute)
	assert.ErrorIs(t, err, unix.ENETUNREACH)
	assert.Len(t, changed, 2, "b deleted, c replaced")
	got, err = tab.List()
	require.NoError(t, err)
	assert.Equal(t, []Route{{Dst: netip.MustParsePrefix("10.244.3.0/24"), Via: netip.MustParseAddr("10.250.0.23")}}, got)

	_, err = Apply(tab, nil)
	require.NoError(t, err)
	got, err = tab.List()
	require.NoError(t, err)
	assert.Empty(t, got)
	rs, err := h.RouteList(nil, netlink.FAMILY_V4)
	require.NoError(t, err)
	found := false
	for _, r := range rs {
		found = found || (r.Dst != nil && r.Dst.String() == other.String())
	}
	assert.True(t, found, "the static route of another owner stays")
	require.NoError(t, tab.Delete(rt("10.244.3.0/24", "10.250.0.23", "c")), "deleting a route already gone is no error")
}
