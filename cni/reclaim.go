package cni

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/containernetworking/cni/libcni"
	"golang.org/x/sys/unix"
)

// hostLocalDefaultDataDir is host-local's data directory when its
// configuration names none.
const hostLocalDefaultDataDir = "/var/lib/cni/networks"

// ReclaimLeaked releases what sandboxes that are no longer alive still hold:
// cached attachments and host-local IP allocations whose sandbox ID live
// reports false. For each such sandbox it runs TearDown (so port mappings
// and masquerade rules go too) and then removes any host-local allocation
// file still naming it. It returns the sandbox IDs reclaimed, sorted.
//
// Call it when the node agent starts, after the runtime has reported which
// sandboxes exist and before new sandboxes are set up: a sandbox being set
// up concurrently that live does not yet know would lose its address. live
// is called once per candidate, from the calling goroutine. Errors of
// individual sandboxes are joined; the others are still reclaimed.
func (n *LibCNI) ReclaimLeaked(ctx context.Context, live func(sandboxID string) bool) ([]string, error) {
	owners := map[string]bool{}
	atts, err := n.cni.GetCachedAttachments("")
	if err != nil {
		return nil, fmt.Errorf("%w: read cache: %w", ErrTearDown, err)
	}
	for _, att := range atts {
		owners[att.ContainerID] = true
	}
	dirs := hostLocalDirs(n.list)
	for _, dir := range dirs {
		allocs, err := readAllocations(dir)
		if err != nil {
			return nil, err
		}
		for _, a := range allocs {
			owners[a.owner] = true
		}
	}
	ids := make([]string, 0, len(owners))
	for id := range owners {
		if id != "" && !live(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if (PodNetwork{SandboxID: id}).validate(false) == nil {
			if err := n.TearDown(ctx, PodNetwork{SandboxID: id}); err != nil {
				errs = append(errs, err)
			}
		}
		for _, dir := range dirs {
			if err := releaseAllocations(dir, id); err != nil {
				errs = append(errs, err)
			}
		}
		n.cfg.Logger.Info("reclaimed leaked pod network", "network", n.list.Name, "sandbox", id)
	}
	return ids, errors.Join(errs...)
}

// hostLocalDirs returns the allocation directories of the host-local IPAM
// plugins in list.
func hostLocalDirs(list *libcni.NetworkConfigList) []string {
	var dirs []string
	for _, p := range list.Plugins {
		var conf struct {
			IPAM struct {
				Type    string `json:"type"`
				DataDir string `json:"dataDir"`
			} `json:"ipam"`
		}
		if json.Unmarshal(p.Bytes, &conf) != nil || conf.IPAM.Type != "host-local" {
			continue
		}
		dataDir := cmpOr(conf.IPAM.DataDir, hostLocalDefaultDataDir)
		dirs = append(dirs, filepath.Join(dataDir, list.Name))
	}
	return dirs
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// allocation is one host-local reservation file: the IP is its name, the
// owning container ID the first line of its content.
type allocation struct {
	path  string
	ip    netip.Addr
	owner string
}

// readAllocations lists the reservations in a host-local directory; a
// missing directory holds none.
func readAllocations(dir string) ([]allocation, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read IPAM dir: %w", ErrTearDown, err)
	}
	var out []allocation
	for _, e := range entries {
		ip, err := netip.ParseAddr(e.Name())
		if err != nil || !e.Type().IsRegular() {
			continue // lock, last_reserved_ip.N
		}
		path := filepath.Join(dir, e.Name())
		owner, err := readOwner(path)
		if err != nil {
			continue // released meanwhile, or unreadable: not ours to judge
		}
		out = append(out, allocation{path: path, ip: ip, owner: owner})
	}
	return out, nil
}

// readOwner parses a host-local reservation: the container ID on the first
// line, then (since plugins v0.8) the interface name, lines ending "\r\n".
func readOwner(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return parseOwner(io.LimitReader(f, 4096))
}

func parseOwner(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", errors.New("empty reservation")
	}
	return strings.TrimSpace(sc.Text()), nil
}

// releaseAllocations removes the reservations of id in dir, holding
// host-local's own lock so no plugin runs meanwhile.
func releaseAllocations(dir, id string) error {
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDONLY|os.O_CREATE, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: lock IPAM dir: %w", ErrTearDown, err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("%w: lock IPAM dir: %w", ErrTearDown, err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN) //nolint:errcheck // closing releases it anyway
	allocs, err := readAllocations(dir)
	if err != nil {
		return err
	}
	for _, a := range allocs {
		if a.owner != id {
			continue
		}
		if err := os.Remove(a.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: release %s of sandbox %q: %w", ErrTearDown, a.ip, id, err)
		}
	}
	return nil
}
