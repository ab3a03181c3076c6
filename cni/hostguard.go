package cni

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// DefaultGuardedCIDRs are the cluster (pod) CIDR of orkit's defaults; a
// zero HostGuardConfig makes them unreachable.
var DefaultGuardedCIDRs = []netip.Prefix{
	netip.MustParsePrefix("10.244.0.0/16"),
}

// DefaultServiceCIDRs are the service CIDR of orkit's defaults; a zero
// HostGuardConfig routes them to the service device.
var DefaultServiceCIDRs = []netip.Prefix{
	netip.MustParsePrefix("10.96.0.0/12"),
}

// DefaultServiceDevice is the dummy device the service CIDRs are routed to.
const DefaultServiceDevice = "orkit-svc"

// DefaultHostGuardStateDir records the live host guards of this machine.
const DefaultHostGuardStateDir = "/run/orkit/hostguard"

// serviceFallbackMetric is the metric of the unreachable route kept under
// each service CIDR's device route: it answers only if the device (and so
// its route) is gone, so the CIDR never falls through to the default route.
const serviceFallbackMetric = 4096

// HostGuardConfig configures InstallHostGuard. The zero value guards
// orkit's defaults (DefaultGuardedCIDRs and DefaultServiceCIDRs); a config
// that names either list guards exactly what it names.
type HostGuardConfig struct {
	// CIDRs to make unreachable: the cluster (pod) CIDRs.
	CIDRs []netip.Prefix
	// ServiceCIDRs to route to the local dummy device ServiceDevice (a
	// port-less bridge without ARP where the kernel has no dummy driver), so
	// that a process on the host can connect() to a cluster IP (the service
	// proxy's output rules then translate it, or reject it: a dummy device
	// sends nothing anywhere). Under each device route an unreachable
	// route with a higher metric stays, in case the device goes away.
	ServiceCIDRs []netip.Prefix
	// ServiceDevice names the dummy device; "" means DefaultServiceDevice.
	// It is created by the first guard that needs it and removed with the
	// last. Guards sharing a device must share a StateDir.
	ServiceDevice string
	// StateDir records which processes hold a guard, so that guards of
	// concurrent processes (parallel test binaries, a minicluster) share the
	// routes and the last one out removes them; "" means
	// DefaultHostGuardStateDir. It must be shared by all guards of the host.
	StateDir string
}

// HostGuard is an installed set of routes in the host's main routing
// table: `unreachable` for each guarded cluster CIDR, and for each service
// CIDR a route to a local dummy device (above an unreachable fallback).
// More specific routes (a node's pod CIDR on its bridge) still win, so
// only addresses with nothing behind them fail, with EHOSTUNREACH (or,
// for a cluster IP, the proxy's reject), instead of leaving through the
// default route.
//
// A HostGuard is held until Remove; several may be held at once, in one
// process or many. A route is removed when no live holder guards its CIDR
// any more, the device when no live holder routes service CIDRs; holders
// of processes that died are pruned then. Routes that existed before any
// guard are treated as the guards' own. Safe for concurrent use.
type HostGuard struct {
	cfg    HostGuardConfig
	holder string // file in StateDir naming this guard

	mu      sync.Mutex
	removed bool
}

// InstallHostGuard installs (or confirms) the routes for each CIDR (and the
// service device) and records this guard as a holder. It needs
// CAP_NET_ADMIN. It is idempotent: routes already present are replaced by
// identical ones. Errors wrap ErrHostGuard (or ErrInvalidConfig for a bad
// CIDR); on error nothing is left held.
func InstallHostGuard(cfg HostGuardConfig) (*HostGuard, error) {
	if cfg.CIDRs == nil && cfg.ServiceCIDRs == nil {
		cfg.CIDRs, cfg.ServiceCIDRs = slices.Clone(DefaultGuardedCIDRs), slices.Clone(DefaultServiceCIDRs)
	}
	if cfg.StateDir == "" {
		cfg.StateDir = DefaultHostGuardStateDir
	}
	if cfg.ServiceDevice == "" {
		cfg.ServiceDevice = DefaultServiceDevice
	}
	for _, p := range slices.Concat(cfg.CIDRs, cfg.ServiceCIDRs) {
		if !p.IsValid() || p.Masked() != p {
			return nil, fmt.Errorf("%w: guarded CIDR %s is not a network prefix", ErrInvalidConfig, p)
		}
	}
	if len(cfg.ServiceDevice) > 15 || strings.ContainsAny(cfg.ServiceDevice, "/ ") {
		return nil, fmt.Errorf("%w: service device name %q is not a valid interface name", ErrInvalidConfig, cfg.ServiceDevice)
	}
	g := &HostGuard{cfg: cfg, holder: fmt.Sprintf("%d.%s", os.Getpid(), nonce())}
	err := g.locked(func() error {
		if err := os.WriteFile(g.holderPath(), []byte(g.holderRecord()), 0o600); err != nil {
			return err
		}
		if err := g.install(); err != nil {
			return errors.Join(err, g.release())
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: install: %w", ErrHostGuard, err)
	}
	return g, nil
}

// install adds the routes (and the device) of this guard.
func (g *HostGuard) install() error {
	for _, p := range g.cfg.CIDRs {
		if err := netlink.RouteReplace(unreachableRoute(p, 0)); err != nil {
			return fmt.Errorf("add unreachable route %s: %w", p, err)
		}
	}
	if len(g.cfg.ServiceCIDRs) == 0 {
		return nil
	}
	dev, err := ensureDummy(g.cfg.ServiceDevice)
	if err != nil {
		return err
	}
	for _, p := range g.cfg.ServiceCIDRs {
		// The fallback first: at no moment is the CIDR without a route.
		if err := netlink.RouteReplace(unreachableRoute(p, serviceFallbackMetric)); err != nil {
			return fmt.Errorf("add unreachable fallback route %s: %w", p, err)
		}
		if err := netlink.RouteReplace(deviceRoute(p, dev)); err != nil {
			return fmt.Errorf("route %s to %s: %w", p, g.cfg.ServiceDevice, err)
		}
	}
	return nil
}

// ensureDummy returns the index of the service device name, up, creating
// it when missing: a dummy device, or where the kernel has no dummy driver
// a bridge without ports and without ARP, which sends nothing anywhere
// just the same. A device of another kind with that name is an error.
func ensureDummy(name string) (int, error) {
	l, err := netlink.LinkByName(name)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if !errors.As(err, &nf) {
			return 0, fmt.Errorf("look up service device %s: %w", name, err)
		}
		attrs := netlink.LinkAttrs{Name: name}
		err := netlink.LinkAdd(&netlink.Dummy{LinkAttrs: attrs})
		if errors.Is(err, unix.EOPNOTSUPP) {
			err = netlink.LinkAdd(&netlink.Bridge{LinkAttrs: attrs})
		}
		if err != nil && !errors.Is(err, unix.EEXIST) {
			return 0, fmt.Errorf("add service device %s: %w", name, err)
		}
		if l, err = netlink.LinkByName(name); err != nil {
			return 0, fmt.Errorf("look up service device %s: %w", name, err)
		}
	}
	if !isServiceDevice(l) {
		return 0, fmt.Errorf("%w: service device %s exists and is a %s with ports, not a dummy", ErrInvalidConfig, name, l.Type())
	}
	if l.Type() == "bridge" && l.Attrs().RawFlags&unix.IFF_NOARP == 0 {
		if err := netlink.LinkSetARPOff(l); err != nil {
			return 0, fmt.Errorf("set service device %s arp off: %w", name, err)
		}
	}
	if err := netlink.LinkSetUp(l); err != nil {
		return 0, fmt.Errorf("set service device %s up: %w", name, err)
	}
	return l.Attrs().Index, nil
}

// isServiceDevice reports whether l can serve as the service device: a
// dummy, or a bridge no device is a port of.
func isServiceDevice(l netlink.Link) bool {
	switch l.Type() {
	case "dummy":
		return true
	case "bridge":
		links, err := netlink.LinkList()
		if err != nil {
			return false
		}
		for _, o := range links {
			if o.Attrs().MasterIndex == l.Attrs().Index {
				return false
			}
		}
		return true
	}
	return false
}

// CIDRs returns the CIDRs made unreachable.
func (g *HostGuard) CIDRs() []netip.Prefix { return slices.Clone(g.cfg.CIDRs) }

// ServiceCIDRs returns the CIDRs routed to the service device.
func (g *HostGuard) ServiceCIDRs() []netip.Prefix { return slices.Clone(g.cfg.ServiceCIDRs) }

// Remove drops this guard and removes the routes no other live guard
// needs. A second Remove is a no-op. Errors wrap ErrHostGuard.
func (g *HostGuard) Remove() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.removed {
		return nil
	}
	if err := g.locked(g.release); err != nil {
		return fmt.Errorf("%w: remove: %w", ErrHostGuard, err)
	}
	g.removed = true
	return nil
}

// release deletes this guard's holder file and the routes that no
// remaining live holder guards, and the service device when no live
// holder routes service CIDRs. Call with the state lock held.
func (g *HostGuard) release() error {
	if err := os.Remove(g.holderPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	needed, devices, err := liveHolders(g.cfg.StateDir)
	if err != nil {
		return err
	}
	var errs []error
	del := func(r *netlink.Route, what string) {
		if err := netlink.RouteDel(r); err != nil && !errors.Is(err, unix.ESRCH) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("delete %s: %w", what, err))
		}
	}
	for _, p := range g.cfg.CIDRs {
		if !needed[p] {
			del(unreachableRoute(p, 0), "unreachable route "+p.String())
		}
	}
	dev, devErr := netlink.LinkByName(g.cfg.ServiceDevice)
	for _, p := range g.cfg.ServiceCIDRs {
		if needed[p] {
			continue
		}
		if devErr == nil {
			del(deviceRoute(p, dev.Attrs().Index), "route "+p.String()+" to "+g.cfg.ServiceDevice)
		}
		del(unreachableRoute(p, serviceFallbackMetric), "unreachable fallback route "+p.String())
	}
	if len(g.cfg.ServiceCIDRs) > 0 && !devices[g.cfg.ServiceDevice] && devErr == nil && isServiceDevice(dev) {
		if err := netlink.LinkDel(dev); err != nil && !errors.Is(err, unix.ENODEV) {
			errs = append(errs, fmt.Errorf("delete service device %s: %w", g.cfg.ServiceDevice, err))
		}
	}
	return errors.Join(errs...)
}

// holderRecord is what a holder file says: one guarded CIDR per line, a
// service CIDR as "service <cidr> <device>". (Readers that only parse
// CIDRs still see every CIDR a holder needs.)
func (g *HostGuard) holderRecord() string {
	var b strings.Builder
	for _, p := range g.cfg.CIDRs {
		b.WriteString(p.String() + "\n")
	}
	for _, p := range g.cfg.ServiceCIDRs {
		b.WriteString("service " + p.String() + " " + g.cfg.ServiceDevice + "\n")
	}
	return b.String()
}

// liveHolders returns the CIDRs guarded by holders whose process is alive
// and the service devices they use, deleting the holder files of dead
// processes.
func liveHolders(dir string) (map[netip.Prefix]bool, map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	needed, devices := map[netip.Prefix]bool{}, map[string]bool{}
	for _, e := range entries {
		pidStr, _, ok := strings.Cut(e.Name(), ".")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 {
			continue // the lock file, strangers
		}
		path := filepath.Join(dir, e.Name())
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			_ = os.Remove(path)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) == 3 && f[0] == "service" {
				devices[f[2]] = true
				f = f[1:2]
			}
			for _, w := range f {
				if p, err := netip.ParsePrefix(w); err == nil {
					needed[p] = true
				}
			}
		}
	}
	return needed, devices, nil
}

// locked runs fn holding the state directory's lock, which serializes the
// guards of every process on the host.
func (g *HostGuard) locked(fn func() error) error {
	if err := os.MkdirAll(g.cfg.StateDir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(g.cfg.StateDir, "lock"), os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	defer unix.Flock(int(f.Fd()), unix.LOCK_UN) //nolint:errcheck // Close releases it too
	return fn()
}

func (g *HostGuard) holderPath() string { return filepath.Join(g.cfg.StateDir, g.holder) }

func unreachableRoute(p netip.Prefix, metric int) *netlink.Route {
	return &netlink.Route{
		Dst:      prefixNet(p),
		Type:     unix.RTN_UNREACHABLE,
		Family:   family(p),
		Protocol: unix.RTPROT_STATIC,
		Table:    unix.RT_TABLE_MAIN,
		Priority: metric,
	}
}

// deviceRoute routes p to the device with index dev (scope link: on it).
func deviceRoute(p netip.Prefix, dev int) *netlink.Route {
	return &netlink.Route{
		Dst:       prefixNet(p),
		LinkIndex: dev,
		Type:      unix.RTN_UNICAST,
		Scope:     netlink.SCOPE_LINK,
		Family:    family(p),
		Protocol:  unix.RTPROT_STATIC,
		Table:     unix.RT_TABLE_MAIN,
	}
}

func prefixNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

func family(p netip.Prefix) int {
	if p.Addr().Is6() {
		return netlink.FAMILY_V6
	}
	return netlink.FAMILY_V4
}

func nonce() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b)
}
