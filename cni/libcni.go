package cni

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/types"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	"golang.org/x/sys/unix"
)

// cleanupTimeout bounds the clean-up after a failed SetUp, which runs even
// when the caller's context is already cancelled.
const cleanupTimeout = 30 * time.Second

// LibCNI is the Network implemented on libcni and the CNI plugin binaries.
// It is created by New, safe for concurrent use, and holds no goroutines or
// open files, so it needs no Close: dropping it is enough. Everything it
// must remember across restarts lives in Config.StateDir.
type LibCNI struct {
	cfg      Config
	exec     invoke.Exec
	cni      *libcni.CNIConfig
	list     *libcni.NetworkConfigList
	loopback *libcni.NetworkConfigList
	locks    keyLock
}

var _ Network = (*LibCNI)(nil)

// New returns a LibCNI for cfg. It creates the state directory and either
// generates the default bridge network (Config.ConfDir empty) or loads the
// first usable file of Config.ConfDir. Errors wrap ErrInvalidConfig or
// ErrNoConfig. New does not check that the plugin binaries exist; Status
// does.
func New(cfg Config) (*LibCNI, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var list *libcni.NetworkConfigList
	if cfg.ConfDir != "" {
		list, err = loadConfDir(cfg.ConfDir, cfg.Logger)
	} else {
		var data []byte
		if data, err = defaultConfList(cfg); err == nil {
			list, err = parseConf(true, data)
		}
	}
	if err != nil {
		return nil, err
	}
	loopback, err := parseConf(true, loopbackConfList())
	if err != nil {
		return nil, err
	}
	cacheDir := filepath.Join(cfg.StateDir, "cache")
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: state dir: %w", ErrInvalidConfig, err)
	}
	exec := cfg.Exec
	if exec == nil {
		exec = &invoke.DefaultExec{RawExec: &invoke.RawExec{Stderr: os.Stderr}}
	}
	return &LibCNI{
		cfg:      cfg,
		exec:     exec,
		cni:      libcni.NewCNIConfigWithCacheDir(cfg.PluginDirs, cacheDir, exec),
		list:     list,
		loopback: loopback,
	}, nil
}

// Name returns the pod network's CNI name.
func (n *LibCNI) Name() string { return n.list.Name }

// Status checks that every plugin of the pod and loopback networks is
// present in the plugin directories and supports the configured CNI
// version. Errors wrap ErrNotReady and name the plugin.
func (n *LibCNI) Status(ctx context.Context) error {
	for _, list := range []*libcni.NetworkConfigList{n.list, n.loopback} {
		for _, p := range list.Plugins {
			if _, err := n.exec.FindInPath(p.Network.Type, n.cfg.PluginDirs); err != nil {
				return fmt.Errorf("%w: network %q: plugin %q: %w", ErrNotReady, list.Name, p.Network.Type, err)
			}
		}
		if _, err := n.cni.ValidateNetworkList(ctx, list); err != nil {
			return fmt.Errorf("%w: network %q: %w", ErrNotReady, list.Name, err)
		}
	}
	return nil
}

// SetUp attaches pod.NetNS to the loopback network on "lo" and to the pod
// network on "eth0", with pod.PortMappings as hostPorts. If a plugin fails
// it deletes what was added (on a fresh context, so a cancelled ctx still
// cleans up) and returns an error wrapping ErrSetUp that names the network,
// the sandbox and the plugin. If the sandbox is already set up it returns
// the cached result without running the plugins again.
func (n *LibCNI) SetUp(ctx context.Context, pod PodNetwork) (Result, error) {
	if err := pod.validate(true); err != nil {
		return Result{}, err
	}
	unlock := n.locks.lock(pod.SandboxID)
	defer unlock()

	rt := n.runtimeConf(pod, podInterface, pod.NetNS)
	if cached, err := n.cni.GetNetworkListCachedResult(n.list, rt); err == nil && cached != nil {
		if res, err := convertResult(cached); err == nil {
			return res, nil
		}
	}
	return n.add(ctx, pod, rt)
}

// add runs ADD for loopback then the pod network, undoing both on failure.
func (n *LibCNI) add(ctx context.Context, pod PodNetwork, rt *libcni.RuntimeConf) (res Result, retErr error) {
	wrap := func(list *libcni.NetworkConfigList, err error) error {
		return fmt.Errorf("%w: network %q, sandbox %q: %w", ErrSetUp, list.Name, pod.SandboxID, err)
	}
	lo := n.runtimeConf(pod, "lo", pod.NetNS)
	if _, err := n.cni.AddNetworkList(ctx, n.loopback, lo); err != nil {
		retErr = wrap(n.loopback, err)
		return Result{}, n.undo(retErr, n.loopback, lo)
	}
	raw, err := n.cni.AddNetworkList(ctx, n.list, rt)
	if err == nil {
		res, err = convertResult(raw)
	}
	if err != nil {
		retErr = wrap(n.list, err)
		retErr = n.undo(retErr, n.list, rt)
		return Result{}, n.undo(retErr, n.loopback, lo)
	}
	return res, nil
}

// undo runs DEL for list after a failed ADD and joins its error to cause.
func (n *LibCNI) undo(cause error, list *libcni.NetworkConfigList, rt *libcni.RuntimeConf) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if err := n.cni.DelNetworkList(ctx, list, rt); err != nil {
		return errors.Join(cause, fmt.Errorf("%w: clean up network %q, sandbox %q: %w",
			ErrTearDown, list.Name, rt.ContainerID, err))
	}
	return cause
}

// TearDown detaches the sandbox: for every attachment cached for it (even
// one made by an earlier LibCNI on the same StateDir, with a configuration
// that has since changed) it runs DEL with the cached configuration and
// port mappings; for the pod and loopback networks it runs DEL with the
// current configuration when nothing was cached (a half-done SetUp). Plugins
// run in reverse order. A netns path that is empty, gone, or no longer a
// network namespace is passed to the plugins as "". Errors wrap ErrTearDown.
func (n *LibCNI) TearDown(ctx context.Context, pod PodNetwork) error {
	if err := pod.validate(false); err != nil {
		return err
	}
	unlock := n.locks.lock(pod.SandboxID)
	defer unlock()

	netns := usableNetNS(pod.NetNS)
	atts, err := n.cni.GetCachedAttachments(pod.SandboxID)
	if err != nil {
		return fmt.Errorf("%w: sandbox %q: read cache: %w", ErrTearDown, pod.SandboxID, err)
	}
	// Pod networks before loopback: the reverse of SetUp.
	slices.SortStableFunc(atts, func(a, b *libcni.NetworkAttachment) int {
		return cmp.Compare(boolInt(a.IfName == "lo"), boolInt(b.IfName == "lo"))
	})
	done := map[string]bool{}
	var errs []error
	for _, att := range atts {
		list, err := parseConf(true, att.Config)
		if err != nil {
			// Unusable: drop it, so the current configuration's DEL below
			// runs instead and TearDown can succeed.
			n.cfg.Logger.Warn("dropping unusable cached CNI attachment", "network", att.Network,
				"sandbox", pod.SandboxID, "err", err)
			_ = os.Remove(filepath.Join(n.cfg.StateDir, "cache", "results",
				att.Network+"-"+att.ContainerID+"-"+att.IfName))
			continue
		}
		attNS := netns
		if attNS == "" && pod.NetNS == "" {
			attNS = usableNetNS(att.NetNS) // the caller forgot it; the cache did not
		}
		rt := &libcni.RuntimeConf{ContainerID: att.ContainerID, NetNS: attNS, IfName: att.IfName,
			Args: att.CniArgs, CapabilityArgs: att.CapabilityArgs}
		done[list.Name+"/"+att.IfName] = true
		errs = append(errs, n.del(ctx, list, rt))
	}
	for _, step := range []struct {
		list   *libcni.NetworkConfigList
		ifName string
	}{{n.list, podInterface}, {n.loopback, "lo"}} {
		if !done[step.list.Name+"/"+step.ifName] {
			errs = append(errs, n.del(ctx, step.list, n.runtimeConf(pod, step.ifName, netns)))
		}
	}
	return errors.Join(errs...)
}

// del runs DEL for list. Without a netns the bridge plugin leaves its
// masquerade rules behind; del then removes them (see ipmasq.go).
func (n *LibCNI) del(ctx context.Context, list *libcni.NetworkConfigList, rt *libcni.RuntimeConf) error {
	var ips []netip.Addr
	cleanMasq := rt.NetNS == "" && masquerades(list)
	if cleanMasq {
		ips = n.knownIPs(list, rt)
	}
	if err := n.cni.DelNetworkList(ctx, list, rt); err != nil {
		return fmt.Errorf("%w: network %q, sandbox %q: %w", ErrTearDown, list.Name, rt.ContainerID, err)
	}
	if cleanMasq {
		if err := removeIPMasq(ctx, list.Name, rt.ContainerID, ips); err != nil {
			return fmt.Errorf("%w: network %q, sandbox %q: masquerade rules: %w", ErrTearDown, list.Name, rt.ContainerID, err)
		}
	}
	return nil
}

// Check runs CHECK for the sandbox's pod and loopback networks against
// their cached results. It returns an error wrapping ErrNotSetUp when no
// result is cached and ErrCheck when a plugin reports a difference.
func (n *LibCNI) Check(ctx context.Context, pod PodNetwork) error {
	if err := pod.validate(true); err != nil {
		return err
	}
	unlock := n.locks.lock(pod.SandboxID)
	defer unlock()
	for _, step := range []struct {
		list   *libcni.NetworkConfigList
		ifName string
	}{{n.loopback, "lo"}, {n.list, podInterface}} {
		rt := n.runtimeConf(pod, step.ifName, pod.NetNS)
		cached, err := n.cni.GetNetworkListCachedResult(step.list, rt)
		if err != nil || cached == nil {
			return fmt.Errorf("%w: network %q, sandbox %q", ErrNotSetUp, step.list.Name, pod.SandboxID)
		}
		if err := n.cni.CheckNetworkList(ctx, step.list, rt); err != nil {
			return fmt.Errorf("%w: network %q, sandbox %q: %w", ErrCheck, step.list.Name, pod.SandboxID, err)
		}
	}
	return nil
}

// runtimeConf builds the per-invocation arguments. Port mappings and DNS go
// only to the pod network; libcni hands each capability only to plugins
// that declare it.
func (n *LibCNI) runtimeConf(pod PodNetwork, ifName, netns string) *libcni.RuntimeConf {
	rt := &libcni.RuntimeConf{
		ContainerID: pod.SandboxID,
		NetNS:       netns,
		IfName:      ifName,
		Args: [][2]string{
			{"IgnoreUnknown", "1"},
			{"K8S_POD_NAMESPACE", pod.Namespace},
			{"K8S_POD_NAME", pod.Name},
			{"K8S_POD_INFRA_CONTAINER_ID", pod.SandboxID},
			{"K8S_POD_UID", pod.UID},
		},
	}
	if ifName == "lo" {
		return rt
	}
	var maps []map[string]any
	for _, pm := range pod.PortMappings {
		if pm.HostPort == 0 {
			continue
		}
		m := map[string]any{
			"hostPort":      pm.HostPort,
			"containerPort": pm.ContainerPort,
			"protocol":      strings.ToLower(string(pm.protocol())),
		}
		if pm.HostIP.IsValid() {
			m["hostIP"] = pm.HostIP.String()
		}
		maps = append(maps, m)
	}
	caps := map[string]any{}
	if len(maps) > 0 {
		caps["portMappings"] = maps
	}
	if dns := pod.DNS; len(dns.Nameservers)+len(dns.Searches)+len(dns.Options) > 0 {
		servers := make([]string, 0, len(dns.Nameservers))
		for _, ns := range dns.Nameservers {
			servers = append(servers, ns.String())
		}
		caps["dns"] = map[string]any{"servers": servers, "searches": dns.Searches, "options": dns.Options}
	}
	if len(caps) > 0 {
		rt.CapabilityArgs = caps
	}
	return rt
}

// convertResult extracts the sandbox interface and its addresses.
func convertResult(raw types.Result) (Result, error) {
	r, err := types100.NewResultFromResult(raw)
	if err != nil {
		return Result{}, fmt.Errorf("convert plugin result: %w", err)
	}
	var out Result
	for _, ip := range r.IPs {
		if ip.Interface != nil && *ip.Interface >= 0 && *ip.Interface < len(r.Interfaces) {
			iface := r.Interfaces[*ip.Interface]
			if iface.Sandbox == "" {
				continue
			}
			out.Interface, out.MAC = iface.Name, iface.Mac
		}
		addr, ok := netip.AddrFromSlice(ip.Address.IP)
		if !ok {
			continue
		}
		ones, _ := ip.Address.Mask.Size()
		cfg := IPConfig{Address: netip.PrefixFrom(addr.Unmap(), ones)}
		if gw, ok := netip.AddrFromSlice(ip.Gateway); ok {
			cfg.Gateway = gw.Unmap()
		}
		out.IPs = append(out.IPs, cfg)
	}
	if len(out.IPs) == 0 {
		return Result{}, errors.New("the plugins returned no IP address for the sandbox")
	}
	if out.Interface == "" {
		out.Interface = podInterface
	}
	slices.SortStableFunc(out.IPs, func(a, b IPConfig) int {
		return cmp.Compare(boolInt(a.Address.Addr().Is6()), boolInt(b.Address.Addr().Is6()))
	})
	return out, nil
}

// usableNetNS returns path if it names a live network namespace, else "".
func usableNetNS(path string) string {
	if path == "" {
		return ""
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil || st.Type != unix.NSFS_MAGIC {
		return ""
	}
	return path
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
