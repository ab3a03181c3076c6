package core

import "github.com/orkit/orkit/api/meta"

// Node is a machine that runs pods.
type Node struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            NodeSpec   `json:"spec,omitempty"`
	Status          NodeStatus `json:"status,omitempty"`
}

// NodeList is a list of nodes.
type NodeList = meta.List[Node]

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	PodCIDR       string       `json:"podCIDR,omitempty"`
	PodCIDRs      []string     `json:"podCIDRs,omitempty"`
	ProviderID    string       `json:"providerID,omitempty"`
	Unschedulable bool         `json:"unschedulable,omitempty"`
	Taints        []Taint      `json:"taints,omitempty"`
	ConfigSource  meta.RawJSON `json:"configSource,omitempty"`
	// DoNotUseExternalID is deprecated and carried unchanged.
	DoNotUseExternalID string `json:"externalID,omitempty"`
}

// NodePhase is the deprecated lifecycle phase of a node.
type NodePhase string

// The node phases.
const (
	NodePending    NodePhase = "Pending"
	NodeRunning    NodePhase = "Running"
	NodeTerminated NodePhase = "Terminated"
)

// NodeConditionType names a node condition.
type NodeConditionType string

// The node condition types.
const (
	NodeReady              NodeConditionType = "Ready"
	NodeMemoryPressure     NodeConditionType = "MemoryPressure"
	NodeDiskPressure       NodeConditionType = "DiskPressure"
	NodePIDPressure        NodeConditionType = "PIDPressure"
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeAddressType is the kind of a node address.
type NodeAddressType string

// The node address types.
const (
	NodeHostName    NodeAddressType = "Hostname"
	NodeInternalIP  NodeAddressType = "InternalIP"
	NodeExternalIP  NodeAddressType = "ExternalIP"
	NodeInternalDNS NodeAddressType = "InternalDNS"
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeStatus is the observed state of a node, written by its kubelet.
type NodeStatus struct {
	Capacity        ResourceList         `json:"capacity,omitempty"`
	Allocatable     ResourceList         `json:"allocatable,omitempty"`
	Phase           NodePhase            `json:"phase,omitempty"`
	Conditions      []NodeCondition      `json:"conditions,omitempty"`
	Addresses       []NodeAddress        `json:"addresses,omitempty"`
	DaemonEndpoints NodeDaemonEndpoints  `json:"daemonEndpoints,omitempty"`
	NodeInfo        NodeSystemInfo       `json:"nodeInfo,omitempty"`
	Images          []ContainerImage     `json:"images,omitempty"`
	VolumesInUse    []string             `json:"volumesInUse,omitempty"`
	VolumesAttached []AttachedVolume     `json:"volumesAttached,omitempty"`
	Config          meta.RawJSON         `json:"config,omitempty"`
	RuntimeHandlers []NodeRuntimeHandler `json:"runtimeHandlers,omitempty"`
	Features        *NodeFeatures        `json:"features,omitempty"`
}

// NodeCondition is one condition of a node.
type NodeCondition struct {
	Type               NodeConditionType    `json:"type"`
	Status             meta.ConditionStatus `json:"status"`
	LastHeartbeatTime  meta.Time            `json:"lastHeartbeatTime,omitzero"`
	LastTransitionTime meta.Time            `json:"lastTransitionTime,omitzero"`
	Reason             string               `json:"reason,omitempty"`
	Message            string               `json:"message,omitempty"`
}

// NodeAddress is one address of a node.
type NodeAddress struct {
	Type    NodeAddressType `json:"type"`
	Address string          `json:"address"`
}

// NodeDaemonEndpoints are the ports of the node's daemons.
type NodeDaemonEndpoints struct {
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty"`
}

// DaemonEndpoint is one daemon's port; the JSON name is capitalised, as in
// Kubernetes.
type DaemonEndpoint struct {
	Port int32 `json:"Port"`
}

// NodeSystemInfo describes the node's software.
type NodeSystemInfo struct {
	MachineID               string          `json:"machineID"`
	SystemUUID              string          `json:"systemUUID"`
	BootID                  string          `json:"bootID"`
	KernelVersion           string          `json:"kernelVersion"`
	OSImage                 string          `json:"osImage"`
	ContainerRuntimeVersion string          `json:"containerRuntimeVersion"`
	KubeletVersion          string          `json:"kubeletVersion"`
	KubeProxyVersion        string          `json:"kubeProxyVersion"`
	OperatingSystem         string          `json:"operatingSystem"`
	Architecture            string          `json:"architecture"`
	Swap                    *NodeSwapStatus `json:"swap,omitempty"`
}

// NodeSwapStatus is the node's swap.
type NodeSwapStatus struct {
	Capacity *int64 `json:"capacity,omitempty"`
}

// ContainerImage is an image present on the node.
type ContainerImage struct {
	Names     []string `json:"names"`
	SizeBytes int64    `json:"sizeBytes,omitempty"`
}

// AttachedVolume is a volume attached to the node.
type AttachedVolume struct {
	Name       string `json:"name"`
	DevicePath string `json:"devicePath"`
}

// NodeRuntimeHandler is a runtime handler the node's runtime offers.
type NodeRuntimeHandler struct {
	Name     string                      `json:"name"`
	Features *NodeRuntimeHandlerFeatures `json:"features,omitempty"`
}

// NodeRuntimeHandlerFeatures are the features of a runtime handler.
type NodeRuntimeHandlerFeatures struct {
	RecursiveReadOnlyMounts *bool `json:"recursiveReadOnlyMounts,omitempty"`
	UserNamespaces          *bool `json:"userNamespaces,omitempty"`
}

// NodeFeatures are the features the node supports.
type NodeFeatures struct {
	SupplementalGroupsPolicy *bool `json:"supplementalGroupsPolicy,omitempty"`
}

// GetNodeCondition returns the condition of type t of status and its index,
// or nil and -1. The pointer aliases status.
func GetNodeCondition(status *NodeStatus, t NodeConditionType) (int, *NodeCondition) {
	if status == nil {
		return -1, nil
	}
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return i, &status.Conditions[i]
		}
	}
	return -1, nil
}

// IsNodeReady reports whether the node's Ready condition is True.
func IsNodeReady(node *Node) bool {
	_, c := GetNodeCondition(&node.Status, NodeReady)
	return c != nil && c.Status == meta.ConditionTrue
}
