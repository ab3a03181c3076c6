package apps

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// ReplicaSet keeps a number of identical pods running.
type ReplicaSet struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ReplicaSetSpec   `json:"spec,omitempty"`
	Status          ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetList is a list of ReplicaSets.
type ReplicaSetList = meta.List[ReplicaSet]

// ReplicaSetSpec is the desired state of a ReplicaSet.
type ReplicaSetSpec struct {
	// Replicas is the desired number of pods (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReadySeconds a pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// Selector selects the pods; it must match Template's labels.
	Selector *meta.LabelSelector `json:"selector"`
	// Template is the pod to create.
	Template core.PodTemplateSpec `json:"template,omitempty"`
}

// ReplicaSetStatus is the observed state of a ReplicaSet.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty"`
}

// ReplicaSetConditionType names a ReplicaSet condition.
type ReplicaSetConditionType string

// ReplicaSetReplicaFailure: a pod could not be created or deleted.
const ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"

// ReplicaSetCondition is one condition of a ReplicaSet.
type ReplicaSetCondition struct {
	Type               ReplicaSetConditionType `json:"type"`
	Status             meta.ConditionStatus    `json:"status"`
	LastTransitionTime meta.Time               `json:"lastTransitionTime,omitzero"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}
