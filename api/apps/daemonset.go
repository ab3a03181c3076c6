package apps

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// DaemonSet runs one pod on every eligible node.
type DaemonSet struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            DaemonSetSpec   `json:"spec,omitempty"`
	Status          DaemonSetStatus `json:"status,omitempty"`
}

// DaemonSetList is a list of DaemonSets.
type DaemonSetList = meta.List[DaemonSet]

// DaemonSetSpec is the desired state of a DaemonSet.
type DaemonSetSpec struct {
	// Selector selects the pods; it must match Template's labels and cannot
	// change after creation.
	Selector *meta.LabelSelector `json:"selector"`
	// Template is the pod to run on each node.
	Template core.PodTemplateSpec `json:"template"`
	// UpdateStrategy is how pods are replaced (default RollingUpdate,
	// maxUnavailable 1, maxSurge 0).
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy,omitempty"`
	// MinReadySeconds a pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is how many ControllerRevisions to keep (default 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// DaemonSetUpdateStrategyType is how a DaemonSet replaces pods.
type DaemonSetUpdateStrategyType string

// The DaemonSet update strategies.
const (
	// RollingUpdateDaemonSetStrategyType replaces pods node by node.
	RollingUpdateDaemonSetStrategyType DaemonSetUpdateStrategyType = "RollingUpdate"
	// OnDeleteDaemonSetStrategyType replaces a pod only when it is deleted.
	OnDeleteDaemonSetStrategyType DaemonSetUpdateStrategyType = "OnDelete"
)

// DaemonSetUpdateStrategy is a strategy type and, for RollingUpdate, its
// limits.
type DaemonSetUpdateStrategy struct {
	Type          DaemonSetUpdateStrategyType `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDaemonSet     `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDaemonSet bounds a rolling update; exactly one of the two
// must be non-zero.
type RollingUpdateDaemonSet struct {
	MaxUnavailable *meta.IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *meta.IntOrString `json:"maxSurge,omitempty"`
}

// DaemonSetStatus is the observed state of a DaemonSet.
type DaemonSetStatus struct {
	CurrentNumberScheduled int32                `json:"currentNumberScheduled"`
	NumberMisscheduled     int32                `json:"numberMisscheduled"`
	DesiredNumberScheduled int32                `json:"desiredNumberScheduled"`
	NumberReady            int32                `json:"numberReady"`
	ObservedGeneration     int64                `json:"observedGeneration,omitempty"`
	UpdatedNumberScheduled int32                `json:"updatedNumberScheduled,omitempty"`
	NumberAvailable        int32                `json:"numberAvailable,omitempty"`
	NumberUnavailable      int32                `json:"numberUnavailable,omitempty"`
	CollisionCount         *int32               `json:"collisionCount,omitempty"`
	Conditions             []DaemonSetCondition `json:"conditions,omitempty"`
}

// DaemonSetConditionType names a DaemonSet condition.
type DaemonSetConditionType string

// DaemonSetCondition is one condition of a DaemonSet.
type DaemonSetCondition struct {
	Type               DaemonSetConditionType `json:"type"`
	Status             meta.ConditionStatus   `json:"status"`
	LastTransitionTime meta.Time              `json:"lastTransitionTime,omitzero"`
	Reason             string                 `json:"reason,omitempty"`
	Message            string                 `json:"message,omitempty"`
}
