package cni

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// Network attaches pod sandboxes to the pod network. Implementations are
// safe for concurrent use; calls for different sandboxes may run in
// parallel, calls for the same sandbox are serialized.
type Network interface {
	// Name returns the network's name (the CNI network name).
	Name() string
	// Status returns nil when the network can serve pods, else an error
	// wrapping ErrNotReady that says what is missing.
	Status(ctx context.Context) error
	// SetUp attaches the sandbox's network namespace and returns its
	// addresses. On failure it undoes what it did and returns an error
	// wrapping ErrSetUp (or ErrInvalidPod). SetUp of a sandbox that is
	// already set up returns the recorded result.
	SetUp(ctx context.Context, pod PodNetwork) (Result, error)
	// TearDown detaches the sandbox and releases its addresses and port
	// mappings. It is idempotent: it returns nil for a sandbox never set
	// up, torn down already, half set up, or whose netns is gone.
	TearDown(ctx context.Context, pod PodNetwork) error
	// Check verifies that the sandbox's network is still as SetUp left it:
	// nil, or an error wrapping ErrCheck or ErrNotSetUp.
	Check(ctx context.Context, pod PodNetwork) error
}

// PodNetwork names one sandbox's attachment. It is a plain value; the
// Network does not keep it.
type PodNetwork struct {
	// Name, Namespace and UID identify the pod; they are passed to the
	// plugins as K8S_POD_* arguments.
	Name      string
	Namespace string
	UID       string
	// SandboxID is the runtime's sandbox ID, the CNI container ID. It is
	// required and must match [A-Za-z0-9][A-Za-z0-9_.-]*.
	SandboxID string
	// NetNS is the path of the sandbox's network namespace (for example
	// /run/netns/<name> or /proc/<pid>/ns/net). Required by SetUp and Check;
	// TearDown accepts an empty or vanished path.
	NetNS string
	// PortMappings are the hostPorts to forward into the sandbox.
	PortMappings []PortMapping
	// DNS is the pod's resolver configuration (see PodDNS). It is offered
	// to plugins that declare the "dns" capability; the sandbox's
	// resolv.conf itself is written with WriteResolvConf.
	DNS DNSConfig
}

// Protocol is a port mapping's transport protocol.
type Protocol string

// Protocols a port mapping may use. The empty Protocol means TCP.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// PortMapping forwards HostIP:HostPort on the node to ContainerPort in the
// sandbox, as a container port with a hostPort does in Kubernetes.
type PortMapping struct {
	HostPort      int32
	ContainerPort int32
	Protocol      Protocol
	// HostIP restricts the mapping to one node address; zero means all.
	HostIP netip.Addr
}

// Result is what SetUp attached: the sandbox-side interface and its
// addresses, IPv4 first.
type Result struct {
	// Interface is the interface's name inside the sandbox ("eth0").
	Interface string
	// MAC is its hardware address, if the plugin reported one.
	MAC string
	// IPs holds the pod's addresses, IPv4 before IPv6.
	IPs []IPConfig
}

// IPConfig is one address of a pod and the gateway for its family.
type IPConfig struct {
	// Address is the pod IP with the prefix length of its subnet.
	Address netip.Prefix
	// Gateway is the next hop; zero if the plugin reported none.
	Gateway netip.Addr
}

// PodIPs returns the pod's addresses without prefix lengths, IPv4 first.
func (r Result) PodIPs() []netip.Addr {
	out := make([]netip.Addr, 0, len(r.IPs))
	for _, ip := range r.IPs {
		out = append(out, ip.Address.Addr())
	}
	return out
}

var sandboxIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]*$`)

// maxSandboxIDLen bounds a sandbox ID; runtimes use 64 hex digits.
const maxSandboxIDLen = 128

// validate checks the fields every operation needs; needNetNS is false for
// TearDown.
func (p PodNetwork) validate(needNetNS bool) error {
	if p.SandboxID == "" {
		return fmt.Errorf("%w: empty sandbox ID", ErrInvalidPod)
	}
	if len(p.SandboxID) > maxSandboxIDLen || !sandboxIDPattern.MatchString(p.SandboxID) {
		return fmt.Errorf("%w: sandbox ID %.140q must match %s and be at most %d characters",
			ErrInvalidPod, p.SandboxID, sandboxIDPattern, maxSandboxIDLen)
	}
	if needNetNS && p.NetNS == "" {
		return fmt.Errorf("%w: sandbox %q: empty netns path", ErrInvalidPod, p.SandboxID)
	}
	for _, s := range []string{p.Name, p.Namespace, p.UID} {
		if strings.ContainsAny(s, ";=\x00") {
			return fmt.Errorf("%w: sandbox %q: pod name, namespace and UID must not hold ';', '=' or NUL",
				ErrInvalidPod, p.SandboxID)
		}
	}
	if err := p.DNS.Validate(); err != nil {
		return fmt.Errorf("%w: sandbox %q: %w", ErrInvalidPod, p.SandboxID, err)
	}
	seen := make(map[string]bool, len(p.PortMappings))
	for i, pm := range p.PortMappings {
		if err := pm.validate(); err != nil {
			return fmt.Errorf("%w: sandbox %q: port mapping %d: %w", ErrInvalidPod, p.SandboxID, i, err)
		}
		key := fmt.Sprintf("%s/%s/%d", pm.protocol(), pm.HostIP, pm.HostPort)
		if pm.HostPort != 0 && seen[key] {
			return fmt.Errorf("%w: sandbox %q: port mapping %d: host port %s used twice",
				ErrInvalidPod, p.SandboxID, i, key)
		}
		seen[key] = true
	}
	return nil
}

func (pm PortMapping) protocol() Protocol {
	if pm.Protocol == "" {
		return ProtocolTCP
	}
	return pm.Protocol
}

func (pm PortMapping) validate() error {
	switch pm.protocol() {
	case ProtocolTCP, ProtocolUDP, ProtocolSCTP:
	default:
		return fmt.Errorf("unknown protocol %q", pm.Protocol)
	}
	if pm.ContainerPort < 1 || pm.ContainerPort > 65535 {
		return fmt.Errorf("container port %d out of range 1-65535", pm.ContainerPort)
	}
	if pm.HostPort < 0 || pm.HostPort > 65535 {
		return fmt.Errorf("host port %d out of range 0-65535", pm.HostPort)
	}
	if pm.HostIP.IsValid() && pm.HostIP.Zone() != "" {
		return fmt.Errorf("host IP %s must not carry a zone", pm.HostIP)
	}
	return nil
}
