package cni

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/utils"
)

// Defaults used when a Config field is zero.
const (
	DefaultNetworkName = "orkit"
	DefaultBridgeName  = "orkit0"
	// DefaultCNIVersion is the spec version of the generated configuration;
	// Debian 12's plugins speak up to 1.0.0.
	DefaultCNIVersion = "1.0.0"
	// loopbackNetworkName names the separate loopback network.
	loopbackNetworkName = "orkit-loopback"
	// podInterface is the interface name inside the sandbox.
	podInterface = "eth0"
	// maxConfFileSize bounds a configuration file read from ConfDir.
	maxConfFileSize = 1 << 20
)

// DefaultPluginDirs are searched for plugin binaries when Config.PluginDirs
// is empty: Debian's package directory, then the upstream one.
var DefaultPluginDirs = []string{"/usr/lib/cni", "/opt/cni/bin"}

// Config configures a LibCNI. The zero value of each field is documented;
// StateDir is required, and PodCIDRs is required when ConfDir is empty.
type Config struct {
	// StateDir is the node's network state directory. LibCNI keeps its
	// result cache in StateDir/cache and, for the generated configuration,
	// its IP allocations in StateDir/ipam. Required.
	StateDir string
	// ConfDir, when set, is a CNI configuration directory: the first file
	// ending in .conflist, .conf or .json, in name order, that parses is
	// the pod network (as the kubelet picks one). Empty means generate the
	// default bridge network.
	ConfDir string
	// PodCIDRs are the node's pod CIDRs (one IPv4, optionally one IPv6) for
	// the generated configuration. Ignored when ConfDir is set.
	PodCIDRs []netip.Prefix
	// NetworkName names the generated network; "" means DefaultNetworkName.
	NetworkName string
	// BridgeName names the generated bridge; "" means DefaultBridgeName.
	BridgeName string
	// MTU of the generated bridge and veths; 0 leaves the plugin default.
	MTU int
	// PluginDirs are searched for plugin binaries; nil means
	// DefaultPluginDirs.
	PluginDirs []string
	// Exec runs plugins; nil means libcni's default (fork and exec). It is
	// the test seam for running without root or plugins.
	Exec invoke.Exec
	// Logger receives warnings (skipped configuration files, reclaimed
	// leaks); nil means slog.Default().
	Logger *slog.Logger
}

// withDefaults validates c and fills its zero fields.
func (c Config) withDefaults() (Config, error) {
	if c.StateDir == "" {
		return c, fmt.Errorf("%w: StateDir is required", ErrInvalidConfig)
	}
	if c.NetworkName == "" {
		c.NetworkName = DefaultNetworkName
	}
	if c.BridgeName == "" {
		c.BridgeName = DefaultBridgeName
	}
	if len(c.PluginDirs) == 0 {
		c.PluginDirs = slices.Clone(DefaultPluginDirs)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ConfDir != "" {
		return c, nil
	}
	if err := utils.ValidateNetworkName(c.NetworkName); err != nil {
		return c, fmt.Errorf("%w: network name %q: %s", ErrInvalidConfig, c.NetworkName, err.Msg)
	}
	if len(c.BridgeName) > 15 || strings.ContainsAny(c.BridgeName, "/ \t\n:") {
		return c, fmt.Errorf("%w: bridge name %q must be at most 15 characters without '/', ':' or spaces",
			ErrInvalidConfig, c.BridgeName)
	}
	if c.MTU < 0 || c.MTU > 65535 {
		return c, fmt.Errorf("%w: MTU %d out of range", ErrInvalidConfig, c.MTU)
	}
	return c, validatePodCIDRs(c.PodCIDRs)
}

func validatePodCIDRs(cidrs []netip.Prefix) error {
	if len(cidrs) == 0 || len(cidrs) > 2 {
		return fmt.Errorf("%w: need one IPv4 and optionally one IPv6 pod CIDR, got %d", ErrInvalidConfig, len(cidrs))
	}
	var v4, v6 int
	for _, p := range cidrs {
		if !p.IsValid() || p.Masked() != p {
			return fmt.Errorf("%w: pod CIDR %s is not a valid network prefix", ErrInvalidConfig, p)
		}
		if p.Addr().Is4() {
			v4++
			if p.Bits() > 30 {
				return fmt.Errorf("%w: pod CIDR %s leaves no room for pods", ErrInvalidConfig, p)
			}
		} else {
			v6++
			if p.Bits() > 126 {
				return fmt.Errorf("%w: pod CIDR %s leaves no room for pods", ErrInvalidConfig, p)
			}
		}
	}
	if v4 > 1 || v6 > 1 {
		return fmt.Errorf("%w: at most one pod CIDR per family", ErrInvalidConfig)
	}
	return nil
}

// defaultConfList renders the generated pod network: bridge with host-local
// IPAM, then portmap.
func defaultConfList(c Config) ([]byte, error) {
	ranges := make([][]map[string]string, 0, len(c.PodCIDRs))
	routes := make([]map[string]string, 0, len(c.PodCIDRs))
	for _, p := range c.PodCIDRs {
		ranges = append(ranges, []map[string]string{{"subnet": p.String()}})
		dst := "0.0.0.0/0"
		if p.Addr().Is6() {
			dst = "::/0"
		}
		routes = append(routes, map[string]string{"dst": dst})
	}
	bridge := map[string]any{
		"type":        "bridge",
		"bridge":      c.BridgeName,
		"isGateway":   true,
		"ipMasq":      true,
		"hairpinMode": true,
		"ipam": map[string]any{
			"type":    "host-local",
			"ranges":  ranges,
			"routes":  routes,
			"dataDir": filepath.Join(c.StateDir, "ipam"),
		},
	}
	if c.MTU > 0 {
		bridge["mtu"] = c.MTU
	}
	list := map[string]any{
		"cniVersion": DefaultCNIVersion,
		"name":       c.NetworkName,
		"plugins": []any{
			bridge,
			map[string]any{
				"type":         "portmap",
				"capabilities": map[string]bool{"portMappings": true},
				"snat":         true,
			},
		},
	}
	return json.MarshalIndent(list, "", "  ")
}

// loopbackConfList is the loopback network, attached on "lo".
func loopbackConfList() []byte {
	return fmt.Appendf(nil, `{"cniVersion":%q,"name":%q,"plugins":[{"type":"loopback"}]}`,
		DefaultCNIVersion, loopbackNetworkName)
}

// loadConfDir returns the first usable configuration in dir, in name order.
// Files that do not parse are skipped with a warning; if none is usable the
// error wraps ErrNoConfig and lists each file's reason.
func loadConfDir(dir string, log *slog.Logger) (*libcni.NetworkConfigList, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrNoConfig, dir, err)
	}
	var reasons []error
	for _, e := range entries { // os.ReadDir sorts by name
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".conflist" && ext != ".conf" && ext != ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		list, err := readConfFile(path)
		if err != nil {
			log.Warn("skipping CNI configuration file", "file", path, "err", err)
			reasons = append(reasons, err)
			continue
		}
		return list, nil
	}
	if len(reasons) == 0 {
		return nil, fmt.Errorf("%w: no .conflist, .conf or .json file in %s", ErrNoConfig, dir)
	}
	return nil, fmt.Errorf("%w in %s: %w", ErrNoConfig, dir, errors.Join(reasons...))
}

func readConfFile(path string) (*libcni.NetworkConfigList, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrInvalidConfig, path, err)
	}
	if len(data) > maxConfFileSize {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrInvalidConfig, path, maxConfFileSize)
	}
	list, err := parseConf(filepath.Ext(path) == ".conflist", data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list, nil
}

// parseConf parses a configuration list (isList) or a single-plugin
// configuration, and checks what libcni leaves to the caller: a valid
// network name, a version, and at least one plugin, each with a type.
func parseConf(isList bool, data []byte) (*libcni.NetworkConfigList, error) {
	var (
		list *libcni.NetworkConfigList
		err  error
	)
	if isList {
		list, err = libcni.NetworkConfFromBytes(data)
	} else {
		var one *libcni.PluginConfig
		if one, err = libcni.NetworkPluginConfFromBytes(data); err == nil {
			list, err = libcni.ConfListFromConf(one)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if verr := utils.ValidateNetworkName(list.Name); verr != nil {
		return nil, fmt.Errorf("%w: network name %q: %s", ErrInvalidConfig, list.Name, verr.Msg)
	}
	if list.CNIVersion == "" {
		return nil, fmt.Errorf("%w: network %q has no cniVersion", ErrInvalidConfig, list.Name)
	}
	if len(list.Plugins) == 0 {
		return nil, fmt.Errorf("%w: network %q has no plugins", ErrInvalidConfig, list.Name)
	}
	for i, p := range list.Plugins {
		if p.Network == nil || p.Network.Type == "" {
			return nil, fmt.Errorf("%w: network %q: plugin %d has no type", ErrInvalidConfig, list.Name, i)
		}
		if strings.ContainsAny(p.Network.Type, "/\x00") {
			return nil, fmt.Errorf("%w: network %q: plugin type %q is not a plain name",
				ErrInvalidConfig, list.Name, p.Network.Type)
		}
	}
	return list, nil
}
