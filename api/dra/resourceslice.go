package dra

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// ResourceSlice is part of a pool of devices a driver publishes: the
// devices and which nodes reach them. It is cluster-scoped; its
// generation counts spec changes. Field selectors: spec.nodeName,
// spec.driver, spec.pool.name.
type ResourceSlice struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the driver, pool, nodes and devices.
	Spec ResourceSliceSpec `json:"spec"`
}

// ResourceSliceSpec describes one slice of a pool. Exactly one of
// NodeName, NodeSelector, AllNodes and PerDeviceNodeSelection is set.
type ResourceSliceSpec struct {
	// Driver publishes the slice (a DNS subdomain of at most 63
	// characters); required, immutable.
	Driver string `json:"driver"`
	// Pool is the pool the slice belongs to; required.
	Pool ResourcePool `json:"pool"`
	// NodeName is the node whose devices these are; immutable.
	NodeName *string `json:"nodeName,omitempty"`
	// NodeSelector selects the nodes that reach the devices (one term).
	NodeSelector *core.NodeSelector `json:"nodeSelector,omitempty"`
	// AllNodes says every node reaches the devices.
	AllNodes *bool `json:"allNodes,omitempty"`
	// Devices are the slice's devices (at most 128, unique names).
	Devices []Device `json:"devices,omitempty"`
	// PerDeviceNodeSelection says each device names its nodes.
	PerDeviceNodeSelection *bool `json:"perDeviceNodeSelection,omitempty"`
	// SharedCounters are counter sets the pool's devices consume (at most
	// 8); a slice has counters or devices, not both.
	SharedCounters []CounterSet `json:"sharedCounters,omitempty"`
	// PartitionTypeAttribute names the attribute that tells a device's
	// partition type.
	PartitionTypeAttribute *FullyQualifiedName `json:"partitionTypeAttribute,omitempty"`
	// SkipNodeOperations are the node operations the kubelet skips for
	// the slice's devices.
	SkipNodeOperations []string `json:"skipNodeOperations,omitempty"`
}

// ResourcePool is the pool a slice belongs to.
type ResourcePool struct {
	// Name is the pool's name (DNS subdomains separated by slashes, at
	// most 253 characters); required, immutable.
	Name string `json:"name"`
	// Generation is bumped by the driver when the pool changes; slices
	// with older generations are ignored.
	Generation int64 `json:"generation"`
	// ResourceSliceCount is how many slices the pool has (at least 1).
	ResourceSliceCount int64 `json:"resourceSliceCount"`
}

// CounterSet is a named set of counters devices draw from.
type CounterSet struct {
	// Name is the set's name (a DNS label); required.
	Name string `json:"name"`
	// Counters are the set's counters, by name (DNS labels).
	Counters map[string]Counter `json:"counters,omitempty"`
}

// Device is one device of a slice.
type Device struct {
	// Name is the device's name in its pool (a DNS label); required.
	Name string `json:"name"`
	// Attributes describe the device, by qualified name.
	Attributes map[QualifiedName]DeviceAttribute `json:"attributes,omitempty"`
	// Capacity is the device's capacity, by qualified name.
	Capacity map[QualifiedName]DeviceCapacity `json:"capacity,omitempty"`
	// ConsumesCounters is what the device draws from shared counters.
	ConsumesCounters []DeviceCounterConsumption `json:"consumesCounters,omitempty"`
	// NodeName is the node that reaches the device (per-device node
	// selection only).
	NodeName *string `json:"nodeName,omitempty"`
	// NodeSelector selects the nodes that reach the device (per-device
	// node selection only).
	NodeSelector *core.NodeSelector `json:"nodeSelector,omitempty"`
	// AllNodes says every node reaches the device (per-device node
	// selection only).
	AllNodes *bool `json:"allNodes,omitempty"`
	// Taints are the device's taints (at most 16).
	Taints []DeviceTaint `json:"taints,omitempty"`
	// BindsToNode says an allocation of the device is tied to one node.
	BindsToNode *bool `json:"bindsToNode,omitempty"`
	// BindingConditions must be true before a pod using the device is
	// bound (at most 4).
	BindingConditions []string `json:"bindingConditions,omitempty"`
	// BindingFailureConditions fail the binding when true (at most 4).
	BindingFailureConditions []string `json:"bindingFailureConditions,omitempty"`
	// AllowMultipleAllocations lets several claims share the device.
	AllowMultipleAllocations *bool `json:"allowMultipleAllocations,omitempty"`
	// NodeAllocatableResources maps the device to node resources.
	NodeAllocatableResources map[core.ResourceName]NodeAllocatableResource `json:"nodeAllocatableResources,omitempty"`
}

// NodeAllocatableResource says how a device counts against a node
// resource.
type NodeAllocatableResource struct {
	// Mapping derives the amount from the device.
	Mapping *NodeAllocatableMapping `json:"mapping,omitempty"`
	// Overhead is added per pod or container.
	Overhead *NodeAllocatableOverhead `json:"overhead,omitempty"`
}

// NodeAllocatableMapping derives a node resource amount from a device.
type NodeAllocatableMapping struct {
	// CapacityKey names the device capacity used.
	CapacityKey *QualifiedName `json:"capacityKey,omitempty"`
	// CapacityMultiplier multiplies the capacity.
	CapacityMultiplier *resource.Quantity `json:"capacityMultiplier,omitempty"`
	// DeviceMultiplier is the amount per device.
	DeviceMultiplier *resource.Quantity `json:"deviceMultiplier,omitempty"`
}

// NodeAllocatableOverhead is a fixed extra amount of a node resource.
type NodeAllocatableOverhead struct {
	// PerPod is added once per pod.
	PerPod *resource.Quantity `json:"perPod,omitempty"`
	// PerContainer is added per container.
	PerContainer *resource.Quantity `json:"perContainer,omitempty"`
}

// DeviceCounterConsumption is what a device draws from one counter set.
type DeviceCounterConsumption struct {
	// CounterSet names the set; required.
	CounterSet string `json:"counterSet"`
	// Counters are the amounts drawn, by counter name.
	Counters map[string]Counter `json:"counters,omitempty"`
	// CompatibilityGroups name groups of devices that may be allocated
	// together.
	CompatibilityGroups []string `json:"compatibilityGroups,omitempty"`
}

// ResourceSliceList is a list of ResourceSlices.
type ResourceSliceList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []ResourceSlice `json:"items"`
}

// GetListMeta returns the list's metadata.
func (l *ResourceSliceList) GetListMeta() *meta.ListMeta { return &l.ListMeta }
