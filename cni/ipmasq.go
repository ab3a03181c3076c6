package cni

import (
	"context"
	"crypto/sha512"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"

	"github.com/containernetworking/cni/libcni"
)

// The bridge plugin removes its ipMasq rules only when it can read the pod's
// addresses from the interface inside the netns; once the netns is gone
// (TearDown after the sandbox died) it releases the IP but leaves the
// masquerade chain and its POSTROUTING jump behind. LibCNI removes them
// itself in that case, with the addresses it knows from the cache or the
// IPAM files, reproducing the plugin's chain and comment names.

// masquerades reports whether list has a bridge plugin with ipMasq; its
// chain name derives from the network name and the sandbox ID.
func masquerades(list *libcni.NetworkConfigList) bool {
	for _, p := range list.Plugins {
		var conf struct {
			Type   string `json:"type"`
			IPMasq bool   `json:"ipMasq"`
		}
		if json.Unmarshal(p.Bytes, &conf) == nil && conf.Type == "bridge" && conf.IPMasq {
			return true
		}
	}
	return false
}

// knownIPs returns the sandbox's addresses on list from the cached result
// and the host-local reservations, before DEL removes both.
func (n *LibCNI) knownIPs(list *libcni.NetworkConfigList, rt *libcni.RuntimeConf) []netip.Addr {
	var ips []netip.Addr
	if cached, err := n.cni.GetNetworkListCachedResult(list, rt); err == nil && cached != nil {
		if res, err := convertResult(cached); err == nil {
			ips = append(ips, res.PodIPs()...)
		}
	}
	for _, dir := range hostLocalDirs(list) {
		allocs, _ := readAllocations(dir)
		for _, a := range allocs {
			if a.owner == rt.ContainerID {
				ips = append(ips, a.ip)
			}
		}
	}
	slices.SortFunc(ips, netip.Addr.Compare)
	return slices.Compact(ips)
}

// ipMasqChain is the bridge plugin's per-sandbox chain name.
func ipMasqChain(network, containerID string) string {
	sum := sha512.Sum512([]byte(network + containerID))
	return fmt.Sprintf("CNI-%x", sum)[:28]
}

// removeIPMasq deletes the POSTROUTING jumps for ips to the sandbox's
// masquerade chain, then the chain. Missing rules and chains are fine.
func removeIPMasq(ctx context.Context, network, containerID string, ips []netip.Addr) error {
	chain := ipMasqChain(network, containerID)
	comment := fmt.Sprintf("name: %q id: %q", network, containerID)
	var errs []error
	for _, bin := range []string{"iptables", "ip6tables"} {
		if exec.Command(bin, "-w", "-t", "nat", "-S", chain).Run() != nil {
			continue // no such chain (or no such tool): nothing leaked
		}
		for _, ip := range ips {
			if ip.Is6() != (bin == "ip6tables") {
				continue
			}
			// Errors ignored: the rule may not exist for this address.
			_ = exec.CommandContext(ctx, bin, "-w", "-t", "nat", "-D", "POSTROUTING", "-s", ip.String(),
				"-j", chain, "-m", "comment", "--comment", comment).Run()
		}
		for _, op := range []string{"-F", "-X"} {
			if out, err := exec.CommandContext(ctx, bin, "-w", "-t", "nat", op, chain).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("%s -t nat %s %s: %w: %s", bin, op, chain, err, out))
				break
			}
		}
	}
	return errors.Join(errs...)
}
