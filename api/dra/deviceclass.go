package dra

import "github.com/orkit/orkit/api/meta"

// DeviceClass is a class of devices a claim may request: the devices
// matching all its selectors, with configuration passed to their
// drivers. It is cluster-scoped; its generation counts spec changes.
type DeviceClass struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec says which devices belong to the class.
	Spec DeviceClassSpec `json:"spec"`
}

// DeviceClassSpec says which devices belong to a class.
type DeviceClassSpec struct {
	// Selectors must all match a device of the class (at most 32).
	Selectors []DeviceSelector `json:"selectors,omitempty"`
	// Config is passed to the drivers of allocated devices (at most 32).
	Config []DeviceClassConfiguration `json:"config,omitempty"`
	// ExtendedResourceName is the extended resource a pod may request
	// to get a device of the class.
	ExtendedResourceName *string `json:"extendedResourceName,omitempty"`
}

// DeviceClassConfiguration is one configuration of a class.
type DeviceClassConfiguration struct {
	DeviceConfiguration `json:",inline"`
}

// DeviceClassList is a list of DeviceClasses.
type DeviceClassList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []DeviceClass `json:"items"`
}

// GetListMeta returns the list's metadata.
func (l *DeviceClassList) GetListMeta() *meta.ListMeta { return &l.ListMeta }
