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

// DefaultGuardedCIDRs are the cluster (pod) CIDR and the service CIDR of
// orkit's defaults; InstallHostGuard guards them when given none.
var DefaultGuardedCIDRs = []netip.Prefix{
	netip.MustParsePrefix("10.244.0.0/16"),
	netip.MustParsePrefix("10.96.0.0/12"),
}

// DefaultHostGuardStateDir records the live host guards of this machine.
const DefaultHostGuardStateDir = "/run/orkit/hostguard"

// HostGuardConfig configures InstallHostGuard.
type HostGuardConfig struct {
	// CIDRs to make unreachable; nil means DefaultGuardedCIDRs.
	CIDRs []netip.Prefix
	// StateDir records which processes hold a guard, so that guards of
	// concurrent processes (parallel test binaries, a minicluster) share the
	// routes and the last one out removes them; "" means
	// DefaultHostGuardStateDir. It must be shared by all guards of the host.
	StateDir string
}

// HostGuard is an installed set of `unreachable` routes in the host's main
// routing table, one per guarded CIDR. More specific routes (a node's pod
// CIDR on its bridge) still win, so only addresses with nothing behind them
// fail, with EHOSTUNREACH, instead of leaving through the default route.
//
// A HostGuard is held until Remove; several may be held at once, in one
// process or many. A route is removed when no live holder guards its CIDR
// any more; holders of processes that died are pruned then. Routes that
// existed before any guard are treated as the guards' own. Safe for
// concurrent use.
type HostGuard struct {
	cfg    HostGuardConfig
	holder string // file in StateDir naming this guard

	mu      sync.Mutex
	removed bool
}

// InstallHostGuard installs (or confirms) an unreachable route for each CIDR
// and records this guard as a holder. It needs CAP_NET_ADMIN. It is
// idempotent: routes already present are replaced by identical ones. Errors
// wrap ErrHostGuard (or ErrInvalidConfig for a bad CIDR); on error nothing
// is left held.
func InstallHostGuard(cfg HostGuardConfig) (*HostGuard, error) {
	if cfg.CIDRs == nil {
		cfg.CIDRs = slices.Clone(DefaultGuardedCIDRs)
	}
	if cfg.StateDir == "" {
		cfg.StateDir = DefaultHostGuardStateDir
	}
	for _, p := range cfg.CIDRs {
		if !p.IsValid() || p.Masked() != p {
			return nil, fmt.Errorf("%w: guarded CIDR %s is not a network prefix", ErrInvalidConfig, p)
		}
	}
	g := &HostGuard{cfg: cfg, holder: fmt.Sprintf("%d.%s", os.Getpid(), nonce())}
	err := g.locked(func() error {
		if err := os.WriteFile(g.holderPath(), []byte(formatCIDRs(cfg.CIDRs)), 0o600); err != nil {
			return err
		}
		for _, p := range cfg.CIDRs {
			if err := netlink.RouteReplace(unreachableRoute(p)); err != nil {
				return errors.Join(fmt.Errorf("add unreachable route %s: %w", p, err), g.release())
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: install: %w", ErrHostGuard, err)
	}
	return g, nil
}

// CIDRs returns the guarded CIDRs.
func (g *HostGuard) CIDRs() []netip.Prefix { return slices.Clone(g.cfg.CIDRs) }

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
// remaining live holder guards. Call with the state lock held.
func (g *HostGuard) release() error {
	if err := os.Remove(g.holderPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	needed, err := liveHolderCIDRs(g.cfg.StateDir)
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range g.cfg.CIDRs {
		if needed[p] {
			continue
		}
		err := netlink.RouteDel(unreachableRoute(p))
		if err != nil && !errors.Is(err, unix.ESRCH) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Errorf("delete unreachable route %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// liveHolderCIDRs returns the CIDRs guarded by holders whose process is
// alive, deleting the holder files of dead processes.
func liveHolderCIDRs(dir string) (map[netip.Prefix]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	needed := map[netip.Prefix]bool{}
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
		for _, line := range strings.Fields(string(data)) {
			if p, err := netip.ParsePrefix(line); err == nil {
				needed[p] = true
			}
		}
	}
	return needed, nil
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

func unreachableRoute(p netip.Prefix) *netlink.Route {
	family := netlink.FAMILY_V4
	if p.Addr().Is6() {
		family = netlink.FAMILY_V6
	}
	return &netlink.Route{
		Dst:      &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())},
		Type:     unix.RTN_UNREACHABLE,
		Family:   family,
		Protocol: unix.RTPROT_STATIC,
		Table:    unix.RT_TABLE_MAIN,
	}
}

func formatCIDRs(ps []netip.Prefix) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func nonce() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on Linux
	return hex.EncodeToString(b)
}
