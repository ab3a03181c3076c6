package dra

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// ResourceClaim is a request for devices, by the pods that reference it.
// It is namespaced; the spec is immutable, and the status (the
// allocation, the consumers it is reserved for, device conditions) is
// written through the status subresource, by the scheduler and drivers.
// It has no generation.
type ResourceClaim struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is what is requested; immutable.
	Spec ResourceClaimSpec `json:"spec"`
	// Status is the allocation and its consumers.
	Status ResourceClaimStatus `json:"status,omitempty"`
}

// ResourceClaimSpec is what a claim requests.
type ResourceClaimSpec struct {
	// Devices are the devices requested.
	Devices DeviceClaim `json:"devices"`
}

// DeviceClaim is the device part of a claim.
type DeviceClaim struct {
	// Requests are the requests, by unique name (at most 32).
	Requests []DeviceRequest `json:"requests"`
	// Constraints apply across the devices of several requests (at most
	// 32).
	Constraints []DeviceConstraint `json:"constraints,omitempty"`
	// Config is passed to the drivers of the allocated devices (at most
	// 32).
	Config []DeviceClaimConfiguration `json:"config,omitempty"`
}

// DeviceAllocationMode is how many devices a request gets.
type DeviceAllocationMode string

// The allocation modes.
const (
	DeviceAllocationModeExactCount DeviceAllocationMode = "ExactCount"
	DeviceAllocationModeAll        DeviceAllocationMode = "All"
)

// DeviceRequest is one request of a claim: exactly one of Exactly and
// FirstAvailable is set.
type DeviceRequest struct {
	// Name identifies the request in the claim (a DNS label); required.
	Name string `json:"name"`
	// Exactly requests devices of one class.
	Exactly *ExactDeviceRequest `json:"exactly,omitempty"`
	// FirstAvailable lists alternatives, the first satisfiable one wins
	// (at most 8).
	FirstAvailable []DeviceSubRequest `json:"firstAvailable,omitempty"`
}

// ExactDeviceRequest requests devices of one class.
type ExactDeviceRequest struct {
	// DeviceClassName names the class (a DNS subdomain); required.
	DeviceClassName string `json:"deviceClassName"`
	// Selectors further restrict the class's devices (at most 32).
	Selectors []DeviceSelector `json:"selectors,omitempty"`
	// AllocationMode is ExactCount (the default) or All.
	AllocationMode DeviceAllocationMode `json:"allocationMode,omitempty"`
	// Count is how many devices ExactCount requests; default 1.
	Count int64 `json:"count,omitempty"`
	// AdminAccess asks for access to devices in use by others (only in
	// namespaces labelled resource.kubernetes.io/admin-access=true).
	AdminAccess *bool `json:"adminAccess,omitempty"`
	// Tolerations are the device taints the request tolerates (at most
	// 16).
	Tolerations []DeviceToleration `json:"tolerations,omitempty"`
	// Capacity is what the request consumes of a shared device.
	Capacity *CapacityRequirements `json:"capacity,omitempty"`
	// DerivedAttributes compute attributes with CEL (at most 32).
	DerivedAttributes []DeviceDerivedAttribute `json:"derivedAttributes,omitempty"`
}

// DeviceSubRequest is one alternative of a FirstAvailable request.
type DeviceSubRequest struct {
	// Name identifies the alternative in its request (a DNS label);
	// required.
	Name string `json:"name"`
	// DeviceClassName names the class; required.
	DeviceClassName string `json:"deviceClassName"`
	// Selectors further restrict the class's devices.
	Selectors []DeviceSelector `json:"selectors,omitempty"`
	// AllocationMode is ExactCount (the default) or All.
	AllocationMode DeviceAllocationMode `json:"allocationMode,omitempty"`
	// Count is how many devices ExactCount requests; default 1.
	Count int64 `json:"count,omitempty"`
	// Tolerations are the device taints tolerated.
	Tolerations []DeviceToleration `json:"tolerations,omitempty"`
	// Capacity is what the request consumes of a shared device.
	Capacity *CapacityRequirements `json:"capacity,omitempty"`
	// DerivedAttributes compute attributes with CEL.
	DerivedAttributes []DeviceDerivedAttribute `json:"derivedAttributes,omitempty"`
}

// CapacityRequirements is what a request consumes of device capacities.
type CapacityRequirements struct {
	// Requests are the amounts, by capacity name.
	Requests map[QualifiedName]resource.Quantity `json:"requests,omitempty"`
}

// DeviceDerivedAttribute is an attribute computed by a CEL expression.
type DeviceDerivedAttribute struct {
	// Name is the attribute's fully qualified name; required.
	Name FullyQualifiedName `json:"name"`
	// Expression computes the value; required.
	Expression string `json:"expression"`
}

// DeviceConstraint constrains the devices of several requests.
type DeviceConstraint struct {
	// Requests are the requests constrained; empty means all.
	Requests []string `json:"requests,omitempty"`
	// MatchAttribute must have the same value on every device.
	MatchAttribute *FullyQualifiedName `json:"matchAttribute,omitempty"`
	// DistinctAttribute must differ on every device.
	DistinctAttribute *FullyQualifiedName `json:"distinctAttribute,omitempty"`
}

// DeviceClaimConfiguration is configuration for the devices of some
// requests.
type DeviceClaimConfiguration struct {
	// Requests are the requests configured; empty means all.
	Requests            []string `json:"requests,omitempty"`
	DeviceConfiguration `json:",inline"`
}

// ResourceClaimStatus is the allocation of a claim and its consumers.
type ResourceClaimStatus struct {
	// Allocation is set once devices are allocated; it cannot change
	// afterwards, only be removed.
	Allocation *AllocationResult `json:"allocation,omitempty"`
	// ReservedFor are the consumers (pods) that may use the claim, by
	// unique UID (at most 256); it needs an allocation.
	ReservedFor []ResourceClaimConsumerReference `json:"reservedFor,omitempty"`
	// Devices are the drivers' reports on the allocated devices.
	Devices []AllocatedDeviceStatus `json:"devices,omitempty"`
}

// ResourceClaimConsumerReference names a consumer of a claim.
type ResourceClaimConsumerReference struct {
	// APIGroup is the consumer's API group ("" for core).
	APIGroup string `json:"apiGroup,omitempty"`
	// Resource is the consumer's resource ("pods"); required.
	Resource string `json:"resource"`
	// Name is the consumer's name; required.
	Name string `json:"name"`
	// UID is the consumer's UID; required.
	UID meta.UID `json:"uid"`
}

// AllocationResult is what was allocated for a claim.
type AllocationResult struct {
	// Devices are the allocated devices and their configuration.
	Devices DeviceAllocationResult `json:"devices,omitempty"`
	// NodeSelector selects the nodes that reach the devices.
	NodeSelector *core.NodeSelector `json:"nodeSelector,omitempty"`
	// AllocationTimestamp is when the allocation was made.
	AllocationTimestamp *meta.Time `json:"allocationTimestamp,omitempty"`
}

// DeviceAllocationResult lists the allocated devices.
type DeviceAllocationResult struct {
	// Results are the devices, per request (at most 32).
	Results []DeviceRequestAllocationResult `json:"results,omitempty"`
	// Config is the class and claim configuration that applies.
	Config []DeviceAllocationConfiguration `json:"config,omitempty"`
}

// DeviceRequestAllocationResult is one device allocated for a request.
type DeviceRequestAllocationResult struct {
	// Request names the request (or request/subrequest); required.
	Request string `json:"request"`
	// Driver is the device's driver; required.
	Driver string `json:"driver"`
	// Pool is the device's pool; required.
	Pool string `json:"pool"`
	// Device is the device's name; required.
	Device string `json:"device"`
	// AdminAccess copies the request's admin access.
	AdminAccess *bool `json:"adminAccess,omitempty"`
	// Tolerations are the tolerations used for the allocation.
	Tolerations []DeviceToleration `json:"tolerations,omitempty"`
	// BindingConditions are copied from the device.
	BindingConditions []string `json:"bindingConditions,omitempty"`
	// BindingFailureConditions are copied from the device.
	BindingFailureConditions []string `json:"bindingFailureConditions,omitempty"`
	// ShareID tells apart several allocations of a shared device.
	ShareID *meta.UID `json:"shareID,omitempty"`
	// ConsumedCapacity is what the allocation consumes of the device.
	ConsumedCapacity map[QualifiedName]resource.Quantity `json:"consumedCapacity,omitempty"`
	// SkipNodeOperations are copied from the slice.
	SkipNodeOperations []string `json:"skipNodeOperations,omitempty"`
}

// AllocationConfigSource says where a configuration came from.
type AllocationConfigSource string

// The configuration sources.
const (
	AllocationConfigSourceClass AllocationConfigSource = "FromClass"
	AllocationConfigSourceClaim AllocationConfigSource = "FromClaim"
)

// DeviceAllocationConfiguration is one configuration of an allocation.
type DeviceAllocationConfiguration struct {
	// Source is FromClass or FromClaim; required.
	Source AllocationConfigSource `json:"source"`
	// Requests are the requests it applies to; empty means all.
	Requests            []string `json:"requests,omitempty"`
	DeviceConfiguration `json:",inline"`
}

// AllocatedDeviceStatus is a driver's report on one allocated device.
type AllocatedDeviceStatus struct {
	// Driver is the device's driver; required.
	Driver string `json:"driver"`
	// Pool is the device's pool; required.
	Pool string `json:"pool"`
	// Device is the device's name; required.
	Device string `json:"device"`
	// ShareID is the allocation's share ID, for shared devices.
	ShareID *string `json:"shareID,omitempty"`
	// Conditions are the device's conditions (at most 8).
	Conditions []meta.Condition `json:"conditions"`
	// Data is driver-specific (at most 10 KiB).
	Data meta.RawJSON `json:"data,omitempty"`
	// NetworkData is the device's network configuration.
	NetworkData *NetworkDeviceData `json:"networkData,omitempty"`
}

// NetworkDeviceData is the network configuration of a device.
type NetworkDeviceData struct {
	// InterfaceName is the interface's name in the pod.
	InterfaceName string `json:"interfaceName,omitempty"`
	// IPs are the interface's addresses, in CIDR form.
	IPs []string `json:"ips,omitempty"`
	// HardwareAddress is the interface's MAC address.
	HardwareAddress string `json:"hardwareAddress,omitempty"`
}

// ResourceClaimList is a list of ResourceClaims.
type ResourceClaimList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []ResourceClaim `json:"items"`
}

// GetListMeta returns the list's metadata.
func (l *ResourceClaimList) GetListMeta() *meta.ListMeta { return &l.ListMeta }

// Allocated reports whether the claim has an allocation.
func (c *ResourceClaim) Allocated() bool { return c.Status.Allocation != nil }
