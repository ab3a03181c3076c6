package apps

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// StatefulSet runs pods with stable ordinal identities (name-0, name-1, ...)
// and, optionally, one PersistentVolumeClaim per pod and template.
type StatefulSet struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            StatefulSetSpec   `json:"spec,omitempty"`
	Status          StatefulSetStatus `json:"status,omitempty"`
}

// StatefulSetList is a list of StatefulSets.
type StatefulSetList = meta.List[StatefulSet]

// StatefulSetSpec is the desired state of a StatefulSet.
type StatefulSetSpec struct {
	// Replicas is the desired number of pods (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector selects the pods; it must match Template's labels.
	Selector *meta.LabelSelector `json:"selector"`
	// Template is the pod to create for each ordinal.
	Template core.PodTemplateSpec `json:"template"`
	// VolumeClaimTemplates are stamped out once per pod and mounted by name.
	VolumeClaimTemplates []core.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`
	// ServiceName is the headless service that gives pods their DNS names.
	ServiceName string `json:"serviceName"`
	// PodManagementPolicy is OrderedReady (default) or Parallel.
	PodManagementPolicy PodManagementPolicyType `json:"podManagementPolicy,omitempty"`
	// UpdateStrategy is how pods are replaced when the template changes.
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitempty"`
	// RevisionHistoryLimit is how many ControllerRevisions to keep (default 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// MinReadySeconds a pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// PersistentVolumeClaimRetentionPolicy says whether claims are deleted
	// with the set or on scale-down (default Retain for both).
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`
	// Ordinals sets the first ordinal (default 0).
	Ordinals *StatefulSetOrdinals `json:"ordinals,omitempty"`
}

// PodManagementPolicyType is how a StatefulSet creates and deletes pods.
type PodManagementPolicyType string

// The pod management policies.
const (
	// OrderedReadyPodManagement creates pods in order, each after the
	// previous is ready, and deletes them in reverse order.
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	// ParallelPodManagement creates and deletes pods all at once.
	ParallelPodManagement PodManagementPolicyType = "Parallel"
)

// StatefulSetUpdateStrategyType is how a StatefulSet replaces pods.
type StatefulSetUpdateStrategyType string

// The StatefulSet update strategies.
const (
	// RollingUpdateStatefulSetStrategyType replaces pods from the highest
	// ordinal down to the partition.
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	// OnDeleteStatefulSetStrategyType replaces a pod only when it is deleted.
	OnDeleteStatefulSetStrategyType StatefulSetUpdateStrategyType = "OnDelete"
)

// StatefulSetUpdateStrategy is a strategy type and, for RollingUpdate, its
// parameters.
type StatefulSetUpdateStrategy struct {
	Type          StatefulSetUpdateStrategyType     `json:"type,omitempty"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStatefulSetStrategy: pods with an ordinal ≥ Partition are
// updated, at most MaxUnavailable at a time.
type RollingUpdateStatefulSetStrategy struct {
	Partition      *int32            `json:"partition,omitempty"`
	MaxUnavailable *meta.IntOrString `json:"maxUnavailable,omitempty"`
}

// PersistentVolumeClaimRetentionPolicyType is Retain or Delete.
type PersistentVolumeClaimRetentionPolicyType string

// The claim retention policies.
const (
	RetainPersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Retain"
	DeletePersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Delete"
)

// StatefulSetPersistentVolumeClaimRetentionPolicy says what happens to the
// claims made from VolumeClaimTemplates.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty"`
	WhenScaled  PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty"`
}

// StatefulSetOrdinals sets the ordinal of the first replica.
type StatefulSetOrdinals struct {
	Start int32 `json:"start"`
}

// StatefulSetStatus is the observed state of a StatefulSet.
type StatefulSetStatus struct {
	ObservedGeneration int64                  `json:"observedGeneration,omitempty"`
	Replicas           int32                  `json:"replicas"`
	ReadyReplicas      int32                  `json:"readyReplicas,omitempty"`
	CurrentReplicas    int32                  `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int32                  `json:"updatedReplicas,omitempty"`
	CurrentRevision    string                 `json:"currentRevision,omitempty"`
	UpdateRevision     string                 `json:"updateRevision,omitempty"`
	CollisionCount     *int32                 `json:"collisionCount,omitempty"`
	Conditions         []StatefulSetCondition `json:"conditions,omitempty"`
	AvailableReplicas  int32                  `json:"availableReplicas"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetCondition is one condition of a StatefulSet.
type StatefulSetCondition struct {
	Type               StatefulSetConditionType `json:"type"`
	Status             meta.ConditionStatus     `json:"status"`
	LastTransitionTime meta.Time                `json:"lastTransitionTime,omitzero"`
	Reason             string                   `json:"reason,omitempty"`
	Message            string                   `json:"message,omitempty"`
}
