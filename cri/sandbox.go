package cri

import (
	"fmt"
	"time"
)

// PodSandboxMetadata identifies the pod a sandbox is for. Name, UID and
// Namespace are required; Attempt counts sandboxes made for the same pod.
type PodSandboxMetadata struct {
	Name      string
	UID       string
	Namespace string
	Attempt   uint32
}

// PodSandboxConfig is what RunPodSandbox needs to run a pod's sandbox.
type PodSandboxConfig struct {
	Metadata PodSandboxMetadata
	// Hostname is set in the sandbox's UTS namespace (default: the pod
	// name) and written to the /etc/hostname containers see.
	Hostname string
	// LogDirectory is the host directory of the pod's container logs;
	// ContainerConfig.LogPath is relative to it. Empty: no logs are kept.
	LogDirectory string
	// DNSConfig becomes the containers' /etc/resolv.conf; nil: the host's.
	DNSConfig *DNSConfig
	// PortMappings are carried for the caller's network setup (hostPort);
	// the runtime does not act on them.
	PortMappings []PortMapping
	Labels       map[string]string
	Annotations  map[string]string
	Linux        LinuxPodSandboxConfig
}

// Validate checks the fields every runtime requires; the error wraps
// ErrInvalidArgument.
func (c PodSandboxConfig) Validate() error {
	m := c.Metadata
	if m.Name == "" || m.UID == "" || m.Namespace == "" {
		return fmt.Errorf("sandbox metadata needs name, uid and namespace (got %q, %q, %q): %w",
			m.Name, m.UID, m.Namespace, ErrInvalidArgument)
	}
	for _, p := range c.PortMappings {
		if p.ContainerPort <= 0 || p.ContainerPort > 65535 || p.HostPort < 0 || p.HostPort > 65535 {
			return fmt.Errorf("port mapping %d->%d out of range: %w", p.HostPort, p.ContainerPort, ErrInvalidArgument)
		}
	}
	if err := c.Linux.Security.NamespaceOptions.validate(); err != nil {
		return err
	}
	return nil
}

// DNSConfig is the content of a sandbox's resolv.conf.
type DNSConfig struct {
	Servers  []string
	Searches []string
	Options  []string
}

// Protocol is a port mapping's protocol.
type Protocol string

// Protocols.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// PortMapping maps a host port to a container port.
type PortMapping struct {
	Protocol      Protocol
	ContainerPort int32
	HostPort      int32
	HostIP        string
}

// LinuxPodSandboxConfig holds the Linux specifics of a sandbox.
type LinuxPodSandboxConfig struct {
	// CgroupParent is the cgroupfs path (e.g. "/kubepods/besteffort/pod<uid>")
	// under which the sandbox's and its containers' cgroups are made.
	// Empty: the runtime's default.
	CgroupParent string
	// Sysctls are namespaced sysctls set in the sandbox (net.*, kernel.shm*, ...).
	Sysctls  map[string]string
	Security LinuxSandboxSecurityContext
}

// LinuxSandboxSecurityContext is the sandbox-wide security settings.
type LinuxSandboxSecurityContext struct {
	NamespaceOptions NamespaceOptions
	// RunAsUser / RunAsGroup apply to the sandbox's own process; nil: root.
	RunAsUser          *int64
	RunAsGroup         *int64
	SupplementalGroups []int64
	ReadonlyRootfs     bool
	// Privileged asks for a privileged sandbox; runtimes refuse it unless
	// configured to allow privileged pods.
	Privileged bool
}

// NamespaceMode says where a container's namespace of one kind comes from.
type NamespaceMode string

// Namespace modes. The empty mode means NamespacePod for network and IPC,
// and NamespaceContainer for PID (Kubernetes' defaults).
const (
	// NamespacePod: the namespace is the sandbox's, shared by the pod.
	NamespacePod NamespaceMode = "POD"
	// NamespaceContainer: the container gets its own namespace (PID only).
	NamespaceContainer NamespaceMode = "CONTAINER"
	// NamespaceNode: the host's namespace.
	NamespaceNode NamespaceMode = "NODE"
	// NamespaceTarget: the namespace of the container NamespaceOptions.TargetID (PID only).
	NamespaceTarget NamespaceMode = "TARGET"
)

// NamespaceOptions chooses the network, PID and IPC namespaces.
type NamespaceOptions struct {
	Network NamespaceMode
	PID     NamespaceMode
	IPC     NamespaceMode
	// TargetID is the container whose PID namespace NamespaceTarget joins.
	TargetID string
}

func (o NamespaceOptions) validate() error {
	check := func(kind string, m NamespaceMode, allowed ...NamespaceMode) error {
		if m == "" {
			return nil
		}
		for _, a := range allowed {
			if m == a {
				return nil
			}
		}
		return fmt.Errorf("%s namespace mode %q not allowed: %w", kind, m, ErrInvalidArgument)
	}
	if err := check("network", o.Network, NamespacePod, NamespaceNode); err != nil {
		return err
	}
	if err := check("ipc", o.IPC, NamespacePod, NamespaceNode); err != nil {
		return err
	}
	if err := check("pid", o.PID, NamespacePod, NamespaceContainer, NamespaceNode, NamespaceTarget); err != nil {
		return err
	}
	if o.PID == NamespaceTarget && o.TargetID == "" {
		return fmt.Errorf("pid namespace mode TARGET needs a target id: %w", ErrInvalidArgument)
	}
	return nil
}

// NetworkMode returns the effective network mode (empty means POD).
func (o NamespaceOptions) NetworkMode() NamespaceMode { return orDefault(o.Network, NamespacePod) }

// IPCMode returns the effective IPC mode (empty means POD).
func (o NamespaceOptions) IPCMode() NamespaceMode { return orDefault(o.IPC, NamespacePod) }

// PIDMode returns the effective PID mode (empty means CONTAINER).
func (o NamespaceOptions) PIDMode() NamespaceMode { return orDefault(o.PID, NamespaceContainer) }

func orDefault(m, def NamespaceMode) NamespaceMode {
	if m == "" {
		return def
	}
	return m
}

// PodSandboxState is a sandbox's state.
type PodSandboxState string

// Sandbox states.
const (
	// SandboxReady: the sandbox's namespaces are held and containers can
	// be created in it.
	SandboxReady PodSandboxState = "SANDBOX_READY"
	// SandboxNotReady: the sandbox was stopped or its process died.
	SandboxNotReady PodSandboxState = "SANDBOX_NOTREADY"
)

// PodSandbox is a sandbox as ListPodSandbox reports it.
type PodSandbox struct {
	ID          string
	Metadata    PodSandboxMetadata
	State       PodSandboxState
	CreatedAt   time.Time
	Labels      map[string]string
	Annotations map[string]string
}

// PodSandboxNetworkStatus is the sandbox's pod IPs, as recorded by the
// caller with UpdatePodSandboxNetwork.
type PodSandboxNetworkStatus struct {
	// IP is the primary pod IP; AdditionalIPs the others (dual stack).
	IP            string
	AdditionalIPs []string
}

// PodSandboxStatus is the full status of a sandbox.
type PodSandboxStatus struct {
	ID        string
	Metadata  PodSandboxMetadata
	State     PodSandboxState
	CreatedAt time.Time
	// NetworkNamespacePath is the path of the sandbox's network namespace
	// (a bind mount the caller hands to CNI); empty with NamespaceNode or
	// once the sandbox is removed.
	NetworkNamespacePath string
	Network              PodSandboxNetworkStatus
	NamespaceOptions     NamespaceOptions
	Labels               map[string]string
	Annotations          map[string]string
}

// PodSandboxFilter selects sandboxes; zero fields match everything.
type PodSandboxFilter struct {
	ID    string
	State PodSandboxState
	// LabelSelector matches sandboxes carrying all these labels.
	LabelSelector map[string]string
}

// Matches reports whether s passes the filter.
func (f PodSandboxFilter) Matches(s PodSandbox) bool {
	return (f.ID == "" || f.ID == s.ID) &&
		(f.State == "" || f.State == s.State) &&
		MatchLabels(f.LabelSelector, s.Labels)
}

// MatchLabels reports whether labels carries every key/value of selector.
// An empty selector matches everything.
func MatchLabels(selector, labels map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
