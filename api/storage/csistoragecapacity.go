package storage

import (
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// CSIStorageCapacity is how much storage of a class a CSI driver can
// provision in a topology segment (the nodes its NodeTopology selects),
// as the driver's external provisioner publishes it for the scheduler.
// It is namespaced (the driver's namespace); its topology and class are
// immutable. orkit serves the kind and publishes none.
type CSIStorageCapacity struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// NodeTopology selects the nodes the capacity is reachable from; nil
	// selects none.
	NodeTopology *meta.LabelSelector `json:"nodeTopology,omitempty"`
	// StorageClassName names the StorageClass (a DNS subdomain); required.
	StorageClassName string `json:"storageClassName"`
	// Capacity is what can be provisioned; nil means unknown.
	Capacity *resource.Quantity `json:"capacity,omitempty"`
	// MaximumVolumeSize is the largest single volume; nil means Capacity.
	MaximumVolumeSize *resource.Quantity `json:"maximumVolumeSize,omitempty"`
}

// CSIStorageCapacityList is a list of CSIStorageCapacities.
type CSIStorageCapacityList = meta.List[CSIStorageCapacity]
