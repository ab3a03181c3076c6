package core

import "github.com/orkit/orkit/api/meta"

// PersistentVolume is a piece of storage in the cluster.
type PersistentVolume struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            PersistentVolumeSpec   `json:"spec,omitempty"`
	Status          PersistentVolumeStatus `json:"status,omitempty"`
}

// PersistentVolumeList is a list of persistent volumes.
type PersistentVolumeList = meta.List[PersistentVolume]

// PersistentVolumeAccessMode says how a volume can be mounted.
type PersistentVolumeAccessMode string

// The access modes.
const (
	ReadWriteOnce    PersistentVolumeAccessMode = "ReadWriteOnce"
	ReadOnlyMany     PersistentVolumeAccessMode = "ReadOnlyMany"
	ReadWriteMany    PersistentVolumeAccessMode = "ReadWriteMany"
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeReclaimPolicy says what happens to a released volume.
type PersistentVolumeReclaimPolicy string

// The reclaim policies.
const (
	PersistentVolumeReclaimRecycle PersistentVolumeReclaimPolicy = "Recycle"
	PersistentVolumeReclaimDelete  PersistentVolumeReclaimPolicy = "Delete"
	PersistentVolumeReclaimRetain  PersistentVolumeReclaimPolicy = "Retain"
)

// PersistentVolumeMode is Filesystem or Block.
type PersistentVolumeMode string

// The volume modes.
const (
	PersistentVolumeBlock      PersistentVolumeMode = "Block"
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// PersistentVolumePhase is the lifecycle phase of a volume.
type PersistentVolumePhase string

// The volume phases.
const (
	VolumePending   PersistentVolumePhase = "Pending"
	VolumeAvailable PersistentVolumePhase = "Available"
	VolumeBound     PersistentVolumePhase = "Bound"
	VolumeReleased  PersistentVolumePhase = "Released"
	VolumeFailed    PersistentVolumePhase = "Failed"
)

// PersistentVolumeSpec is the desired state of a volume.
type PersistentVolumeSpec struct {
	Capacity                      ResourceList `json:"capacity,omitempty"`
	PersistentVolumeSource        `json:",inline"`
	AccessModes                   []PersistentVolumeAccessMode  `json:"accessModes,omitempty"`
	ClaimRef                      *ObjectReference              `json:"claimRef,omitempty"`
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty"`
	StorageClassName              string                        `json:"storageClassName,omitempty"`
	MountOptions                  []string                      `json:"mountOptions,omitempty"`
	VolumeMode                    *PersistentVolumeMode         `json:"volumeMode,omitempty"`
	NodeAffinity                  *VolumeNodeAffinity           `json:"nodeAffinity,omitempty"`
	VolumeAttributesClassName     *string                       `json:"volumeAttributesClassName,omitempty"`
}

// PersistentVolumeSource is where a volume's storage is; exactly one field is set.
type PersistentVolumeSource struct {
	HostPath *HostPathVolumeSource      `json:"hostPath,omitempty"`
	NFS      *NFSVolumeSource           `json:"nfs,omitempty"`
	Local    *LocalVolumeSource         `json:"local,omitempty"`
	CSI      *CSIPersistentVolumeSource `json:"csi,omitempty"`
}

// LocalVolumeSource is a disk, partition or directory of one node.
type LocalVolumeSource struct {
	Path   string  `json:"path"`
	FSType *string `json:"fsType,omitempty"`
}

// CSIPersistentVolumeSource is a CSI-provisioned volume; orkit carries it unchanged.
type CSIPersistentVolumeSource struct {
	Driver           string            `json:"driver"`
	VolumeHandle     string            `json:"volumeHandle"`
	ReadOnly         bool              `json:"readOnly,omitempty"`
	FSType           string            `json:"fsType,omitempty"`
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty"`
}

// VolumeNodeAffinity restricts the nodes that can reach a volume.
type VolumeNodeAffinity struct {
	Required *NodeSelector `json:"required,omitempty"`
}

// PersistentVolumeStatus is the observed state of a volume.
type PersistentVolumeStatus struct {
	Phase                   PersistentVolumePhase `json:"phase,omitempty"`
	Message                 string                `json:"message,omitempty"`
	Reason                  string                `json:"reason,omitempty"`
	LastPhaseTransitionTime *meta.Time            `json:"lastPhaseTransitionTime,omitempty"`
}

// PersistentVolumeClaim is a request for storage, bound to one volume.
type PersistentVolumeClaim struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            PersistentVolumeClaimSpec   `json:"spec,omitempty"`
	Status          PersistentVolumeClaimStatus `json:"status,omitempty"`
}

// PersistentVolumeClaimList is a list of claims.
type PersistentVolumeClaimList = meta.List[PersistentVolumeClaim]

// PersistentVolumeClaimSpec is the desired state of a claim.
type PersistentVolumeClaimSpec struct {
	AccessModes               []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	Selector                  *meta.LabelSelector          `json:"selector,omitempty"`
	Resources                 VolumeResourceRequirements   `json:"resources,omitempty"`
	VolumeName                string                       `json:"volumeName,omitempty"`
	StorageClassName          *string                      `json:"storageClassName,omitempty"`
	VolumeMode                *PersistentVolumeMode        `json:"volumeMode,omitempty"`
	DataSource                *TypedLocalObjectReference   `json:"dataSource,omitempty"`
	DataSourceRef             *TypedObjectReference        `json:"dataSourceRef,omitempty"`
	VolumeAttributesClassName *string                      `json:"volumeAttributesClassName,omitempty"`
}

// PersistentVolumeClaimPhase is the lifecycle phase of a claim.
type PersistentVolumeClaimPhase string

// The claim phases.
const (
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	ClaimBound   PersistentVolumeClaimPhase = "Bound"
	ClaimLost    PersistentVolumeClaimPhase = "Lost"
)

// PersistentVolumeClaimStatus is the observed state of a claim.
type PersistentVolumeClaimStatus struct {
	Phase              PersistentVolumeClaimPhase       `json:"phase,omitempty"`
	AccessModes        []PersistentVolumeAccessMode     `json:"accessModes,omitempty"`
	Capacity           ResourceList                     `json:"capacity,omitempty"`
	Conditions         []PersistentVolumeClaimCondition `json:"conditions,omitempty"`
	AllocatedResources ResourceList                     `json:"allocatedResources,omitempty"`
	// AllocatedResourceStatuses are the resize states per resource
	// ("ControllerResizeInProgress", ...), set by the resize controller.
	AllocatedResourceStatuses map[ResourceName]string `json:"allocatedResourceStatuses,omitempty"`
	// CurrentVolumeAttributesClassName is the VolumeAttributesClass
	// applied to the volume; nil when none has been.
	CurrentVolumeAttributesClassName *string `json:"currentVolumeAttributesClassName,omitempty"`
	// ModifyVolumeStatus is the state of a change to another
	// VolumeAttributesClass; nil when none is under way.
	ModifyVolumeStatus *ModifyVolumeStatus `json:"modifyVolumeStatus,omitempty"`
}

// ModifyVolumeStatus is the state of a claim's move to the
// VolumeAttributesClass its spec names.
type ModifyVolumeStatus struct {
	// TargetVolumeAttributesClassName is the class being applied.
	TargetVolumeAttributesClassName string `json:"targetVolumeAttributesClassName,omitempty"`
	// Status is Pending, InProgress or Infeasible.
	Status PersistentVolumeClaimModifyVolumeStatus `json:"status"`
}

// PersistentVolumeClaimModifyVolumeStatus is the state of a
// VolumeAttributesClass change.
type PersistentVolumeClaimModifyVolumeStatus string

// The VolumeAttributesClass change states.
const (
	// ModifyVolumePending waits for a condition, such as the class to
	// exist.
	ModifyVolumePending PersistentVolumeClaimModifyVolumeStatus = "Pending"
	// ModifyVolumeInProgress is being applied by the driver.
	ModifyVolumeInProgress PersistentVolumeClaimModifyVolumeStatus = "InProgress"
	// ModifyVolumeInfeasible was refused by the driver as invalid.
	ModifyVolumeInfeasible PersistentVolumeClaimModifyVolumeStatus = "Infeasible"
)

// PersistentVolumeClaimCondition is one condition of a claim.
type PersistentVolumeClaimCondition struct {
	Type               string               `json:"type"`
	Status             meta.ConditionStatus `json:"status"`
	LastProbeTime      meta.Time            `json:"lastProbeTime,omitzero"`
	LastTransitionTime meta.Time            `json:"lastTransitionTime,omitzero"`
	Reason             string               `json:"reason,omitempty"`
	Message            string               `json:"message,omitempty"`
}
