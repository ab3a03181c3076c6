package storage

import "github.com/orkit/orkit/api/meta"

// VolumeAttributesClass is a class of mutable volume attributes (such as
// IOPS or throughput) a CSI driver applies to a volume whose claim names
// the class in spec.volumeAttributesClassName. It is cluster-scoped; its
// driver and parameters are immutable.
type VolumeAttributesClass struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// DriverName is the CSI driver that applies the class (a qualified
	// name); required.
	DriverName string `json:"driverName"`
	// Parameters are passed to the driver unchanged: at least one, with
	// non-empty keys, at most 512 and 256 KiB of keys and values.
	Parameters map[string]string `json:"parameters,omitempty"`
}

// VolumeAttributesClassList is a list of VolumeAttributesClasses.
type VolumeAttributesClassList = meta.List[VolumeAttributesClass]
