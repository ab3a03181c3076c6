package dra

import (
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// QualifiedName is the name of a device attribute or capacity: a C
// identifier of at most 32 characters, optionally prefixed by a DNS
// subdomain and a slash ("gpu.example.com/memory").
type QualifiedName string

// FullyQualifiedName is a QualifiedName that carries its domain.
type FullyQualifiedName string

// DeviceSelector picks devices; a device must match every selector of a
// class or request.
type DeviceSelector struct {
	// CEL selects with a CEL expression; required.
	CEL *CELDeviceSelector `json:"cel,omitempty"`
}

// CELDeviceSelector is a CEL expression over the variable device
// (driver, attributes, capacity, allowMultipleAllocations) that must
// evaluate to true for a matching device.
type CELDeviceSelector struct {
	// Expression is the CEL expression (at most 10 KiB); it must compile
	// and evaluate to a bool.
	Expression string `json:"expression"`
}

// DeviceConfiguration is configuration for a driver, opaque to
// Kubernetes.
type DeviceConfiguration struct {
	// Opaque is the driver's own configuration.
	Opaque *OpaqueDeviceConfiguration `json:"opaque,omitempty"`
}

// OpaqueDeviceConfiguration is configuration the named driver
// interprets.
type OpaqueDeviceConfiguration struct {
	// Driver is the driver the parameters are for (a DNS subdomain of
	// at most 63 characters); required.
	Driver string `json:"driver"`
	// Parameters is any JSON object (at most 10 KiB); required.
	Parameters meta.RawJSON `json:"parameters"`
}

// DeviceTaintEffect is what a device taint does to claims and pods.
type DeviceTaintEffect string

// The taint effects.
const (
	DeviceTaintEffectNone       DeviceTaintEffect = "None"
	DeviceTaintEffectNoSchedule DeviceTaintEffect = "NoSchedule"
	DeviceTaintEffectNoExecute  DeviceTaintEffect = "NoExecute"
)

// DeviceTaint marks a device so that claims which do not tolerate it are
// not allocated it (NoSchedule) or are evicted from it (NoExecute).
type DeviceTaint struct {
	// Key is the taint's key (a qualified name); required.
	Key string `json:"key"`
	// Value is the taint's value (a label value).
	Value string `json:"value,omitempty"`
	// Effect is None, NoSchedule or NoExecute; required.
	Effect DeviceTaintEffect `json:"effect"`
	// TimeAdded is when the taint was added; set by the server when the
	// effect changes.
	TimeAdded *meta.Time `json:"timeAdded,omitempty"`
}

// DeviceTolerationOperator is how a toleration compares values.
type DeviceTolerationOperator string

// The toleration operators.
const (
	DeviceTolerationOpExists DeviceTolerationOperator = "Exists"
	DeviceTolerationOpEqual  DeviceTolerationOperator = "Equal"
)

// DeviceToleration lets a claim use devices with a matching taint.
type DeviceToleration struct {
	// Key is the taint key matched; empty with Exists matches all keys.
	Key string `json:"key,omitempty"`
	// Operator is Equal (the default) or Exists.
	Operator DeviceTolerationOperator `json:"operator,omitempty"`
	// Value is the taint value matched with Equal.
	Value string `json:"value,omitempty"`
	// Effect is the taint effect matched; empty matches all.
	Effect DeviceTaintEffect `json:"effect,omitempty"`
	// TolerationSeconds is how long a NoExecute taint is tolerated.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// DeviceAttribute is one attribute value of a device; exactly one field
// is set.
type DeviceAttribute struct {
	// IntValue is a number.
	IntValue *int64 `json:"int,omitempty"`
	// BoolValue is true or false.
	BoolValue *bool `json:"bool,omitempty"`
	// StringValue is a string of at most 64 characters.
	StringValue *string `json:"string,omitempty"`
	// VersionValue is a semantic version (semver 2.0.0) of at most 64
	// characters.
	VersionValue *string `json:"version,omitempty"`
	// IntValues is a list of numbers.
	IntValues []int64 `json:"ints,omitempty"`
	// BoolValues is a list of booleans.
	BoolValues []bool `json:"bools,omitempty"`
	// StringValues is a list of strings.
	StringValues []string `json:"strings,omitempty"`
	// VersionValues is a list of semantic versions.
	VersionValues []string `json:"versions,omitempty"`
}

// DeviceCapacity is one capacity of a device.
type DeviceCapacity struct {
	// Value is the capacity; required.
	Value resource.Quantity `json:"value"`
	// RequestPolicy says how a shared device's capacity may be consumed.
	RequestPolicy *CapacityRequestPolicy `json:"requestPolicy,omitempty"`
}

// CapacityRequestPolicy constrains what a request may consume of a
// capacity.
type CapacityRequestPolicy struct {
	// Default is consumed when a request names no amount.
	Default *resource.Quantity `json:"default"`
	// ValidValues are the amounts allowed.
	ValidValues []resource.Quantity `json:"validValues,omitempty"`
	// ValidRange is the range of amounts allowed.
	ValidRange *CapacityRequestPolicyRange `json:"validRange,omitempty"`
}

// CapacityRequestPolicyRange is a range of amounts, with a step.
type CapacityRequestPolicyRange struct {
	// Min is the smallest amount.
	Min *resource.Quantity `json:"min,omitempty"`
	// Max is the largest amount.
	Max *resource.Quantity `json:"max,omitempty"`
	// Step is the increment above Min.
	Step *resource.Quantity `json:"step,omitempty"`
}

// Counter is an amount of a shared counter.
type Counter struct {
	// Value is the amount; required.
	Value resource.Quantity `json:"value"`
}
