package dra

import "github.com/orkit/orkit/api/meta"

// DeviceTaintRule puts a taint on the devices its selector matches. It is
// cluster-scoped, has a status subresource (conditions), and its
// generation counts spec changes.
type DeviceTaintRule struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is the selector and the taint.
	Spec DeviceTaintRuleSpec `json:"spec"`
	// Status is what the taint eviction controller reports.
	Status DeviceTaintRuleStatus `json:"status,omitempty"`
}

// DeviceTaintRuleSpec is which devices get which taint.
type DeviceTaintRuleSpec struct {
	// DeviceSelector picks the devices; nil or empty selects none.
	DeviceSelector *DeviceTaintSelector `json:"deviceSelector,omitempty"`
	// Taint is put on the selected devices; required.
	Taint DeviceTaint `json:"taint,omitempty"`
}

// DeviceTaintSelector picks devices by driver, pool and name; every set
// field must match.
type DeviceTaintSelector struct {
	// Driver is the driver's name.
	Driver *string `json:"driver,omitempty"`
	// Pool is the pool's name.
	Pool *string `json:"pool,omitempty"`
	// Device is the device's name.
	Device *string `json:"device,omitempty"`
}

// DeviceTaintRuleStatus is the observed state of a rule.
type DeviceTaintRuleStatus struct {
	// Conditions are the rule's conditions (at most 8), by type.
	Conditions []meta.Condition `json:"conditions,omitempty"`
}

// DeviceTaintRuleList is a list of DeviceTaintRules.
type DeviceTaintRuleList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []DeviceTaintRule `json:"items"`
}

// GetListMeta returns the list's metadata.
func (l *DeviceTaintRuleList) GetListMeta() *meta.ListMeta { return &l.ListMeta }
