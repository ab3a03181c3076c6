package hosttest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vishvananda/netns"

	"github.com/orkit/orkit/internal/testenv"
)

// netnsDir is where `ip netns` keeps named namespaces.
const netnsDir = "/run/netns"

// Config shapes the hosts. The zero value is one host.
type Config struct {
	// Hosts is the number of hosts; zero means 1, at most 200.
	Hosts int
	// Subnet is the hosts' /24; the zero value picks a free one in
	// 10.250.0.0/16 (one no route of the test's namespace overlaps).
	Subnet netip.Prefix
}

// Hosts is the bridge and the hosts on it; it lives until the test's
// cleanup.
type Hosts struct {
	// Bridge is the host bridge's name in the test's namespace.
	Bridge string
	// Gateway is the bridge's address: what the test serves the hosts on.
	Gateway netip.Addr
	// Subnet is the hosts' network.
	Subnet netip.Prefix
	// Hosts are the hosts, host-1 first.
	Hosts []*Host
}

// Host is one network namespace on the bridge.
type Host struct {
	// Name is the host's name (host-<i>); Netns names its namespace in
	// /run/netns.
	Name, Netns string
	// Addr is the host's address on the bridge (its eth0).
	Addr netip.Addr
}

// NetnsPath is the namespace's file.
func (h *Host) NetnsPath() string { return filepath.Join(netnsDir, h.Netns) }

// Command returns cmd with args to run on the host: in its network
// namespace, otherwise as the test.
func (h *Host) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"--net=" + h.NetnsPath(), "--", name}, args...)...)
}

// Run runs cmd with args on the host and returns its combined output.
func (h *Host) Run(name string, args ...string) (string, error) {
	out, err := h.Command(name, args...).CombinedOutput()
	return string(out), err
}

// Start makes the bridge and the hosts, or skips (CI=true: fails) the
// test when it is not root or lacks ip or nsenter.
func Start(t testing.TB, cfg Config) *Hosts {
	t.Helper()
	requireRoot(t)
	if cfg.Hosts == 0 {
		cfg.Hosts = 1
	}
	if cfg.Hosts < 0 || cfg.Hosts > 200 {
		t.Fatalf("hosttest: %d hosts: want 1 to 200", cfg.Hosts)
	}
	id := nonce()
	hs := &Hosts{Bridge: "okh" + id}
	var err error
	if hs.Subnet = cfg.Subnet; !hs.Subnet.IsValid() {
		if hs.Subnet, err = freeSubnet(); err != nil {
			t.Fatalf("hosttest: %v", err)
		}
	}
	hs.Gateway = hs.Subnet.Addr().Next()
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", hs.Bridge).Run() })
	if err := runAll([][]string{
		{"ip", "link", "add", hs.Bridge, "type", "bridge"},
		{"ip", "addr", "add", netip.PrefixFrom(hs.Gateway, hs.Subnet.Bits()).String(), "dev", hs.Bridge},
		{"ip", "link", "set", hs.Bridge, "up"},
	}); err != nil {
		t.Fatalf("hosttest: bridge: %v", err)
	}
	for i := 1; i <= cfg.Hosts; i++ {
		h, err := hs.add(t, id, i)
		if err != nil {
			t.Fatalf("hosttest: host-%d: %v", i, err)
		}
		hs.Hosts = append(hs.Hosts, h)
	}
	return hs
}

// add makes host i: its namespace, a veth pair with eth0 inside, the
// address, loopback up.
func (hs *Hosts) add(t testing.TB, id string, i int) (*Host, error) {
	addr := hs.Subnet.Addr()
	for range 10 + i {
		addr = addr.Next()
	}
	h := &Host{Name: fmt.Sprintf("host-%d", i), Netns: fmt.Sprintf("orkit-%s-%d", id, i), Addr: addr}
	outside := fmt.Sprintf("okh%s-%d", id, i)
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", h.Netns).Run()
		_ = exec.Command("ip", "link", "del", outside).Run()
	})
	in := func(args ...string) []string { return append([]string{"ip", "-n", h.Netns}, args...) }
	return h, runAll([][]string{
		{"ip", "netns", "add", h.Netns},
		{"ip", "link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", h.Netns},
		{"ip", "link", "set", outside, "master", hs.Bridge},
		{"ip", "link", "set", outside, "up"},
		in("link", "set", "lo", "up"),
		in("addr", "add", netip.PrefixFrom(addr, hs.Subnet.Bits()).String(), "dev", "eth0"),
		in("link", "set", "eth0", "up"),
	})
}

func runAll(cmds [][]string) error {
	for _, c := range cmds {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w: %s", strings.Join(c, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// freeSubnet picks a /24 of 10.250.0.0/16 that no route of this
// namespace overlaps (other tests' hosts, the machine's networks).
func freeSubnet() (netip.Prefix, error) {
	out, err := exec.Command("ip", "-4", "route", "show", "table", "all").CombinedOutput()
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("ip route: %w: %s", err, out)
	}
	var used []netip.Prefix
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		for _, w := range f {
			if p, err := netip.ParsePrefix(w); err == nil {
				used = append(used, p)
			} else if a, err := netip.ParseAddr(w); err == nil {
				used = append(used, netip.PrefixFrom(a, 32))
			}
		}
	}
	b := make([]byte, 1)
	for range 256 {
		_, _ = rand.Read(b)
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 250, b[0], 0}), 24)
		free := true
		for _, u := range used {
			free = free && !u.Overlaps(p)
		}
		if free {
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("no free /24 in 10.250.0.0/16")
}

func nonce() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Unavailable(t, "root (hosttest makes network namespaces)")
	}
	for _, c := range []string{"ip", "nsenter"} {
		if _, err := exec.LookPath(c); err != nil {
			testenv.Unavailable(t, c+": "+err.Error())
		}
	}
}

// Listen opens a TCP listener in the host's namespace at addr (":0"
// picks a port on all its addresses); the test serves it from any
// goroutine. Errors come from the namespace switch or the listen.
func (h *Host) Listen(addr string) (net.Listener, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return nil, err
	}
	defer orig.Close()
	ns, err := netns.GetFromPath(h.NetnsPath())
	if err != nil {
		return nil, err
	}
	defer ns.Close()
	if err := netns.Set(ns); err != nil {
		return nil, err
	}
	ln, lerr := net.Listen("tcp", addr)
	if err := netns.Set(orig); err != nil {
		// The thread cannot go back: it must not run anything else.
		runtime.LockOSThread()
		if ln != nil {
			ln.Close()
		}
		return nil, fmt.Errorf("return to the test's namespace: %w", err)
	}
	return ln, lerr
}
