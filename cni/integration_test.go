//go:build linux

package cni

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// requireNetworking skips (or, with CI=true, fails) a test that needs root,
// the CNI plugins and iproute2/iptables.
func requireNetworking(t *testing.T) {
	t.Helper()
	missing := func(reason string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("prerequisite missing with CI=true: %s", reason)
		}
		t.Skipf("skipping real-network test: %s", reason)
	}
	if os.Geteuid() != 0 {
		missing("needs root")
	}
	for _, plugin := range []string{"bridge", "host-local", "portmap", "loopback"} {
		found := false
		for _, dir := range DefaultPluginDirs {
			if _, err := os.Stat(filepath.Join(dir, plugin)); err == nil {
				found = true
			}
		}
		if !found {
			missing(fmt.Sprintf("CNI plugin %q not in %v (run scripts/setup.sh)", plugin, DefaultPluginDirs))
		}
	}
	for _, bin := range []string{"ip", "iptables"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing(bin + " not installed")
		}
	}
}

// testNetwork is one test's private pod network: a bridge and a /24 of the
// cluster CIDR nobody else uses, behind the host guard.
type testNetwork struct {
	cfg    Config
	net    *LibCNI
	subnet netip.Prefix
	bridge string
}

func newTestNetwork(t *testing.T) *testNetwork {
	t.Helper()
	requireNetworking(t)
	guard, err := InstallHostGuard(HostGuardConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, guard.Remove()) })

	subnet, bridge := freeSubnet(t)
	tn := &testNetwork{subnet: subnet, bridge: bridge}
	tn.cfg = Config{StateDir: t.TempDir(), PodCIDRs: []netip.Prefix{subnet}, BridgeName: bridge,
		NetworkName: "orkit-test-" + bridge}
	tn.net, err = New(tn.cfg)
	require.NoError(t, err)
	require.NoError(t, tn.net.Status(context.Background()))
	t.Cleanup(func() {
		if l, err := netlink.LinkByName(bridge); err == nil {
			assert.NoError(t, netlink.LinkDel(l))
		}
	})
	return tn
}

// setUp attaches pod and registers a TearDown for the test's end, so a
// failing test leaves no veth, IP or iptables rule behind.
func setUp(t *testing.T, n *LibCNI, pod PodNetwork) Result {
	t.Helper()
	t.Cleanup(func() { assert.NoError(t, n.TearDown(context.Background(), pod)) })
	res, err := n.SetUp(context.Background(), pod)
	require.NoError(t, err)
	return res
}

// freeSubnet picks a 10.244.X.0/24 (X in 150–199) with no route and an unused bridge name.
// Packages whose tests run at the same time take disjoint shares of X: minicluster 1, kubelet 20–99, cri/containerd 100–149, cni 150–199, proxy 200–249.
func freeSubnet(t *testing.T) (netip.Prefix, string) {
	t.Helper()
	for range 100 {
		x := 150 + rand.IntN(50)
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(x), 0}), 24)
		bridge := fmt.Sprintf("okt%04x", rand.IntN(1<<16))
		if _, err := netlink.LinkByName(bridge); err == nil {
			continue
		}
		r, err := netlink.RouteGet(p.Addr().Next().AsSlice())
		if err == nil && len(r) > 0 && r[0].LinkIndex > 0 && r[0].Gw == nil {
			continue // some bridge serves it already
		}
		return p, bridge
	}
	t.Fatal("no free 10.244.X.0/24")
	return netip.Prefix{}, ""
}

// newNetNS creates a named network namespace removed at cleanup.
func newNetNS(t *testing.T) (name, path string) {
	t.Helper()
	name = fmt.Sprintf("orkit-cni-test-%08x", rand.Uint32())
	out, err := exec.Command("ip", "netns", "add", name).CombinedOutput()
	require.NoError(t, err, "ip netns add: %s", out)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	return name, "/run/netns/" + name
}

func deleteNetNS(t *testing.T, name string) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "del", name).CombinedOutput()
	require.NoError(t, err, "ip netns del: %s", out)
}

// serveInNetNS listens on addr inside the namespace at nsPath and answers
// every connection with greeting. The socket is created on a thread moved
// into the namespace and back; the listener then works from any thread.
func serveInNetNS(t *testing.T, nsPath, addr, greeting string) {
	t.Helper()
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked if switching back fails: the thread then dies with us
		orig, err := netns.Get()
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer orig.Close()
		target, err := netns.GetFromPath(nsPath)
		if err != nil {
			ch <- result{err: err}
			return
		}
		defer target.Close()
		if err := netns.Set(target); err != nil {
			ch <- result{err: err}
			return
		}
		l, lerr := net.Listen("tcp", addr)
		if err := netns.Set(orig); err != nil {
			ch <- result{err: errors.Join(lerr, err)}
			return
		}
		runtime.UnlockOSThread()
		ch <- result{l: l, err: lerr}
	}()
	res := <-ch
	require.NoError(t, res.err)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := res.l.Accept()
			if err != nil {
				return // closed at cleanup
			}
			_, _ = c.Write([]byte(greeting + "\n"))
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = res.l.Close(); wg.Wait() })
}

// fetch dials addr and returns the first line it answers.
func fetch(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return line, err
}

// bridgePorts counts the veths attached to the bridge.
func bridgePorts(t *testing.T, bridge string) int {
	t.Helper()
	br, err := netlink.LinkByName(bridge)
	if err != nil {
		return 0
	}
	links, err := netlink.LinkList()
	require.NoError(t, err)
	n := 0
	for _, l := range links {
		if l.Attrs().MasterIndex == br.Attrs().Index {
			n++
		}
	}
	return n
}

// masqChainExists reports whether the bridge plugin's masquerade chain
// for the sandbox is in the nat table.
func (tn *testNetwork) masqChainExists(sandboxID string) bool {
	return exec.Command("iptables", "-w", "-t", "nat", "-S", ipMasqChain(tn.cfg.NetworkName, sandboxID)).Run() == nil
}

func (tn *testNetwork) allocations(t *testing.T) []allocation {
	t.Helper()
	a, err := readAllocations(filepath.Join(tn.cfg.StateDir, "ipam", tn.cfg.NetworkName))
	require.NoError(t, err)
	return a
}

func TestIntegrationSetUpReachCheckTearDown(t *testing.T) {
	tn := newTestNetwork(t)
	ctx := context.Background()
	_, nsPath := newNetNS(t)
	pod := PodNetwork{Name: "web", Namespace: "default", UID: "uid-1", SandboxID: "sandbox-reach", NetNS: nsPath}

	res := setUp(t, tn.net, pod)
	require.Len(t, res.IPs, 1)
	ip := res.IPs[0].Address.Addr()
	assert.True(t, tn.subnet.Contains(ip), "pod IP %s in %s", ip, tn.subnet)
	assert.Equal(t, tn.subnet.Addr().Next(), res.IPs[0].Gateway)
	assert.Equal(t, "eth0", res.Interface)
	assert.NotEmpty(t, res.MAC)
	assert.Equal(t, 1, bridgePorts(t, tn.bridge))
	require.Len(t, tn.allocations(t), 1)
	assert.True(t, tn.masqChainExists(pod.SandboxID))

	serveInNetNS(t, nsPath, ":8080", "hello from the pod")
	line, err := fetch(netip.AddrPortFrom(ip, 8080).String())
	require.NoError(t, err)
	assert.Equal(t, "hello from the pod\n", line)

	require.NoError(t, tn.net.Check(ctx, pod))

	require.NoError(t, tn.net.TearDown(ctx, pod))
	assert.Equal(t, 0, bridgePorts(t, tn.bridge), "veth removed")
	assert.Empty(t, tn.allocations(t), "IP released")
	assert.False(t, tn.masqChainExists(pod.SandboxID), "masquerade rules removed")
	require.NoError(t, tn.net.TearDown(ctx, pod), "second TearDown")
	require.ErrorIs(t, tn.net.Check(ctx, pod), ErrNotSetUp)
}

func TestIntegrationTearDownAfterNetNSDeleted(t *testing.T) {
	tn := newTestNetwork(t)
	ctx := context.Background()
	name, nsPath := newNetNS(t)
	pod := PodNetwork{SandboxID: "sandbox-gone", NetNS: nsPath,
		PortMappings: []PortMapping{{HostPort: int32(freePort(t)), ContainerPort: 8080}}}
	setUp(t, tn.net, pod)

	require.True(t, tn.masqChainExists(pod.SandboxID))
	deleteNetNS(t, name)
	require.NoError(t, tn.net.TearDown(ctx, pod))
	assert.Empty(t, tn.allocations(t))
	assert.False(t, tn.masqChainExists(pod.SandboxID), "masquerade rules removed without the netns")
	assert.Equal(t, 0, bridgePorts(t, tn.bridge))
	require.NoError(t, tn.net.TearDown(ctx, pod))
}

func TestIntegrationTearDownAfterRestart(t *testing.T) {
	tn := newTestNetwork(t)
	ctx := context.Background()
	_, nsPath := newNetNS(t)
	pod := PodNetwork{SandboxID: "sandbox-restart", NetNS: nsPath}
	setUp(t, tn.net, pod)

	restarted, err := New(tn.cfg)
	require.NoError(t, err)
	require.NoError(t, restarted.Check(ctx, pod))
	// The caller lost the netns path in its restart; the cache has it.
	require.NoError(t, restarted.TearDown(ctx, PodNetwork{SandboxID: pod.SandboxID}))
	assert.Empty(t, tn.allocations(t))
	assert.Equal(t, 0, bridgePorts(t, tn.bridge))
}

func TestIntegrationSetUpFailureLeavesNothing(t *testing.T) {
	tn := newTestNetwork(t)
	ctx := context.Background()
	t.Run("missing netns", func(t *testing.T) {
		pod := PodNetwork{SandboxID: "sandbox-nons", NetNS: "/run/netns/does-not-exist-orkit"}
		_, err := tn.net.SetUp(ctx, pod)
		require.ErrorIs(t, err, ErrSetUp)
		assert.Contains(t, err.Error(), `type="loopback"`)
		require.NoError(t, tn.net.TearDown(ctx, pod))
	})
	t.Run("bridge plugin fails", func(t *testing.T) {
		name, nsPath := newNetNS(t)
		// An eth0 already in the sandbox makes the bridge plugin fail.
		out, err := exec.Command("ip", "-n", name, "link", "add", "eth0", "type", "veth", "peer", "name", "eth0peer").CombinedOutput()
		require.NoError(t, err, "%s", out)
		pod := PodNetwork{SandboxID: "sandbox-eth0", NetNS: nsPath}
		_, err = tn.net.SetUp(ctx, pod)
		require.ErrorIs(t, err, ErrSetUp)
		assert.Contains(t, err.Error(), `network "`+tn.cfg.NetworkName+`"`)
		assert.Contains(t, err.Error(), `type="bridge"`)
		assert.Empty(t, tn.allocations(t))
		assert.Equal(t, 0, bridgePorts(t, tn.bridge))
		require.NoError(t, tn.net.TearDown(ctx, pod))
	})
}

func TestIntegrationReclaimLeaked(t *testing.T) {
	tn := newTestNetwork(t)
	ctx := context.Background()
	deadName, deadPath := newNetNS(t)
	_, livePath := newNetNS(t)
	setUp(t, tn.net, PodNetwork{SandboxID: "sandbox-dead", NetNS: deadPath})
	live := setUp(t, tn.net, PodNetwork{SandboxID: "sandbox-live", NetNS: livePath})
	deleteNetNS(t, deadName)

	restarted, err := New(tn.cfg)
	require.NoError(t, err)
	reclaimed, err := restarted.ReclaimLeaked(ctx, func(id string) bool { return id == "sandbox-live" })
	require.NoError(t, err)
	assert.Equal(t, []string{"sandbox-dead"}, reclaimed)
	assert.False(t, tn.masqChainExists("sandbox-dead"))
	assert.True(t, tn.masqChainExists("sandbox-live"))
	allocs := tn.allocations(t)
	require.Len(t, allocs, 1)
	assert.Equal(t, live.IPs[0].Address.Addr(), allocs[0].ip)
	require.NoError(t, restarted.TearDown(ctx, PodNetwork{SandboxID: "sandbox-live", NetNS: livePath}))
}

func TestIntegrationHostPort(t *testing.T) {
	tn := newTestNetwork(t)
	ctx := context.Background()
	_, nsPath := newNetNS(t)
	hostPort := freePort(t)
	pod := PodNetwork{SandboxID: "sandbox-hostport", NetNS: nsPath,
		PortMappings: []PortMapping{{HostPort: int32(hostPort), ContainerPort: 8080}}}
	setUp(t, tn.net, pod)
	serveInNetNS(t, nsPath, ":8080", "via hostPort")

	line, err := fetch(fmt.Sprintf("127.0.0.1:%d", hostPort))
	require.NoError(t, err)
	assert.Equal(t, "via hostPort\n", line)

	require.NoError(t, tn.net.TearDown(ctx, pod))
	_, err = fetch(fmt.Sprintf("127.0.0.1:%d", hostPort))
	require.Error(t, err, "the mapping is gone after TearDown")
}

// freePort returns a TCP port nothing listens on at the moment.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestIntegrationHostGuardBlocksUnservedAddresses(t *testing.T) {
	requireNetworking(t)
	guard, err := InstallHostGuard(HostGuardConfig{})
	require.NoError(t, err)
	defer func() { require.NoError(t, guard.Remove()) }()
	assert.Equal(t, DefaultGuardedCIDRs, guard.CIDRs())
	assert.Equal(t, DefaultServiceCIDRs, guard.ServiceCIDRs())

	// A pod address with no pod: unreachable, proven before sending
	// anything, so a broken guard can never send a packet off the host.
	subnet, _ := freeSubnet(t)
	target := subnet.Addr().Next().Next()
	routes, err := netlink.RouteGet(target.AsSlice())
	require.Error(t, err, "route to %s must not exist: %v", target, routes)
	require.ErrorIs(t, err, syscall.EHOSTUNREACH)
	_, err = net.DialTimeout("tcp", netip.AddrPortFrom(target, 80).String(), time.Second)
	require.ErrorIs(t, err, syscall.EHOSTUNREACH, "dial %s", target)

	// A cluster IP: routed to the service device, where the proxy's rules
	// translate or reject it (a dummy device sends nothing anywhere).
	dev, err := netlink.LinkByName(DefaultServiceDevice)
	require.NoError(t, err)
	assert.True(t, isServiceDevice(dev), "a dummy, or a bridge without ports: %s", dev.Type())
	if dev.Type() == "bridge" {
		assert.NotZero(t, dev.Attrs().RawFlags&unix.IFF_NOARP, "without ARP")
	}
	routes, err = netlink.RouteGet(netip.MustParseAddr("10.96.0.1").AsSlice())
	require.NoError(t, err)
	require.NotEmpty(t, routes)
	assert.Equal(t, dev.Attrs().Index, routes[0].LinkIndex, "10.96.0.1 goes to %s: %+v", DefaultServiceDevice, routes[0])
	assert.Nil(t, routes[0].Gw, "never through a gateway")
}

// TestIntegrationHostGuardServiceFallback removes the service device
// under a guard: its route goes with it, and the unreachable fallback
// answers, so a cluster IP never takes the default route.
func TestIntegrationHostGuardServiceFallback(t *testing.T) {
	requireNetworking(t)
	svcCIDR := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 100, byte(rand.IntN(256)), 0}), 24)
	device := fmt.Sprintf("okt%04x", rand.IntN(1<<16))
	cfg := HostGuardConfig{ServiceCIDRs: []netip.Prefix{svcCIDR}, ServiceDevice: device, StateDir: t.TempDir()}
	g, err := InstallHostGuard(cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		if l, err := netlink.LinkByName(device); err == nil {
			_ = netlink.LinkDel(l)
		}
	})
	assert.Empty(t, g.CIDRs(), "a config naming a list guards only what it names")
	target := svcCIDR.Addr().Next()
	dev, err := netlink.LinkByName(device)
	require.NoError(t, err)
	routes, err := netlink.RouteGet(target.AsSlice())
	require.NoError(t, err)
	assert.Equal(t, dev.Attrs().Index, routes[0].LinkIndex)

	require.NoError(t, netlink.LinkDel(dev))
	_, err = netlink.RouteGet(target.AsSlice())
	require.ErrorIs(t, err, syscall.EHOSTUNREACH, "the fallback answers without the device")

	// Installing again restores the device and its route.
	g2, err := InstallHostGuard(cfg)
	require.NoError(t, err)
	dev, err = netlink.LinkByName(device)
	require.NoError(t, err)
	routes, err = netlink.RouteGet(target.AsSlice())
	require.NoError(t, err)
	assert.Equal(t, dev.Attrs().Index, routes[0].LinkIndex)
	require.NoError(t, g.Remove())
	_, err = netlink.LinkByName(device)
	require.NoError(t, err, "g2 still holds the device")
	require.NoError(t, g2.Remove())
	_, err = netlink.LinkByName(device)
	require.Error(t, err, "the last holder removed the device")
	rs, err := netlink.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Dst: prefixNet(svcCIDR), Table: unix.RT_TABLE_MAIN},
		netlink.RT_FILTER_DST|netlink.RT_FILTER_TABLE)
	require.NoError(t, err)
	assert.Empty(t, rs, "and every route of the service CIDR")

	_, err = InstallHostGuard(HostGuardConfig{ServiceCIDRs: []netip.Prefix{svcCIDR}, ServiceDevice: "a/b", StateDir: cfg.StateDir})
	require.ErrorIs(t, err, ErrInvalidConfig)
}

func TestIntegrationHostGuardSharedHolders(t *testing.T) {
	requireNetworking(t)
	subnet, _ := freeSubnet(t)
	cfg := HostGuardConfig{CIDRs: []netip.Prefix{subnet}, StateDir: t.TempDir()}
	// Look for this exact route: other tests running at the same time (the
	// kubelet's, the minicluster's) hold the default guard over
	// 10.244.0.0/16, so a route lookup would find theirs.
	installed := func() bool {
		rs, err := netlink.RouteListFiltered(netlink.FAMILY_V4, unreachableRoute(subnet, 0), netlink.RT_FILTER_DST|netlink.RT_FILTER_TABLE)
		require.NoError(t, err)
		for _, r := range rs {
			if r.Type == unix.RTN_UNREACHABLE {
				return true
			}
		}
		return false
	}
	// A holder left by a process that died is pruned.
	require.NoError(t, os.WriteFile(filepath.Join(cfg.StateDir, "999999999.dead"), []byte(subnet.String()), 0o600))

	a, err := InstallHostGuard(cfg)
	require.NoError(t, err)
	b, err := InstallHostGuard(cfg)
	require.NoError(t, err)
	require.True(t, installed())
	assert.Equal(t, []netip.Prefix{subnet}, a.CIDRs())
	assert.Empty(t, a.ServiceCIDRs())

	require.NoError(t, a.Remove())
	require.True(t, installed(), "b still holds the route")
	require.NoError(t, a.Remove(), "second Remove is a no-op")
	require.NoError(t, b.Remove())
	require.False(t, installed(), "the last holder removed the route")
	_, err = os.Stat(filepath.Join(cfg.StateDir, "999999999.dead"))
	require.ErrorIs(t, err, os.ErrNotExist)

	_, err = InstallHostGuard(HostGuardConfig{CIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.1.1/16")}, StateDir: cfg.StateDir})
	require.ErrorIs(t, err, ErrInvalidConfig)
}

func TestIntegrationDualStack(t *testing.T) {
	tn := newTestNetwork(t)
	// The host has an IPv6 default route: guard the pods' IPv6 range too,
	// so nothing for it can leave the host.
	v6Range := netip.MustParsePrefix("fd00:10:244::/48")
	guard, err := InstallHostGuard(HostGuardConfig{CIDRs: []netip.Prefix{v6Range}})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, guard.Remove()) })

	v6 := netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0, 0x10, 0x02, 0x44, 0, tn.subnet.Addr().As4()[2]}), 64)
	cfg := tn.cfg
	cfg.PodCIDRs = []netip.Prefix{tn.subnet, v6}
	cfg.StateDir = t.TempDir()
	dual, err := New(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	_, nsPath := newNetNS(t)
	pod := PodNetwork{SandboxID: "sandbox-dual", NetNS: nsPath}
	res := setUp(t, dual, pod)
	ips := res.PodIPs()
	require.Len(t, ips, 2)
	assert.True(t, tn.subnet.Contains(ips[0]), "IPv4 first: %v", ips)
	assert.True(t, v6.Contains(ips[1]), "then IPv6: %v", ips)

	serveInNetNS(t, nsPath, ":8080", "dual")
	br, err := netlink.LinkByName(tn.bridge)
	require.NoError(t, err)
	// The bridge's new IPv6 gateway address is tentative until duplicate
	// address detection ends; the pod cannot reach it before.
	waitIPv6Settled(t, br)
	for _, ip := range ips {
		routes, err := netlink.RouteGet(ip.AsSlice())
		require.NoError(t, err)
		require.Equal(t, br.Attrs().Index, routes[0].LinkIndex, "%s is reached through the test bridge", ip)
		line, err := fetch(netip.AddrPortFrom(ip, 8080).String())
		require.NoError(t, err, "reach %s", ip)
		assert.Equal(t, "dual\n", line)
	}
	require.NoError(t, dual.TearDown(ctx, pod))
	allocs, err := readAllocations(filepath.Join(cfg.StateDir, "ipam", cfg.NetworkName))
	require.NoError(t, err)
	assert.Empty(t, allocs)
}

// waitIPv6Settled polls until no IPv6 address of link is tentative.
func waitIPv6Settled(t *testing.T, link netlink.Link) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		addrs, err := netlink.AddrList(link, netlink.FAMILY_V6)
		require.NoError(t, err)
		tentative := false
		for _, a := range addrs {
			if a.Flags&unix.IFA_F_TENTATIVE != 0 {
				tentative = true
			}
		}
		if !tentative {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("IPv6 addresses of %s still tentative: %v", link.Attrs().Name, addrs)
		}
		<-tick.C
	}
}

func TestIntegrationConcurrentSandboxes(t *testing.T) {
	tn := newTestNetwork(t)
	ctx := context.Background()
	const n = 6
	pods := make([]PodNetwork, n)
	for i := range pods {
		_, nsPath := newNetNS(t)
		pods[i] = PodNetwork{SandboxID: fmt.Sprintf("sandbox-par-%d", i), NetNS: nsPath}
		t.Cleanup(func() { assert.NoError(t, tn.net.TearDown(context.Background(), pods[i])) })
	}
	results := make([]Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = tn.net.SetUp(ctx, pods[i])
		}()
	}
	wg.Wait()
	seen := map[netip.Addr]bool{}
	for i := range pods {
		require.NoError(t, errs[i])
		ip := results[i].IPs[0].Address.Addr()
		assert.False(t, seen[ip], "IP %s handed out twice", ip)
		seen[ip] = true
	}
	assert.Equal(t, n, bridgePorts(t, tn.bridge))
	for i := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = tn.net.TearDown(ctx, pods[i])
		}()
	}
	wg.Wait()
	for i := range pods {
		require.NoError(t, errs[i])
	}
	assert.Empty(t, tn.allocations(t))
	assert.Equal(t, 0, bridgePorts(t, tn.bridge))
}
