package apps

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// Deployment declares a replicated, rolling-updated set of pods, carried out
// through ReplicaSets (one per pod-template revision).
type Deployment struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            DeploymentSpec   `json:"spec,omitempty"`
	Status          DeploymentStatus `json:"status,omitempty"`
}

// DeploymentList is a list of Deployments.
type DeploymentList = meta.List[Deployment]

// DeploymentSpec is the desired state of a Deployment. Pointer fields are
// filled by DefaultDeployment.
type DeploymentSpec struct {
	// Replicas is the desired number of pods (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector selects the pods; it must match Template's labels and cannot
	// change after creation.
	Selector *meta.LabelSelector `json:"selector"`
	// Template is the pod to run.
	Template core.PodTemplateSpec `json:"template"`
	// Strategy is how old pods are replaced (default RollingUpdate 25%/25%).
	Strategy DeploymentStrategy `json:"strategy,omitempty"`
	// MinReadySeconds a new pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is how many old ReplicaSets to keep (default 10).
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// Paused stops the controller from rolling out template changes.
	Paused bool `json:"paused,omitempty"`
	// ProgressDeadlineSeconds after which a stalled rollout is reported as
	// ProgressDeadlineExceeded (default 600).
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// DeploymentStrategyType is how a Deployment replaces old pods.
type DeploymentStrategyType string

// The deployment strategies.
const (
	// RecreateDeploymentStrategyType kills every old pod before creating new ones.
	RecreateDeploymentStrategyType DeploymentStrategyType = "Recreate"
	// RollingUpdateDeploymentStrategyType replaces pods gradually.
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy is a strategy type and, for RollingUpdate, its limits.
type DeploymentStrategy struct {
	Type          DeploymentStrategyType   `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment bounds a rolling update. Each is a count or a
// percentage of replicas; they may not both be 0.
type RollingUpdateDeployment struct {
	// MaxUnavailable pods during the update (percentages round down).
	MaxUnavailable *meta.IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge pods above replicas during the update (percentages round up).
	MaxSurge *meta.IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus is the observed state of a Deployment, written by its
// controller.
type DeploymentStatus struct {
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty"`
	Replicas            int32                 `json:"replicas,omitempty"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty"`
	// CollisionCount is bumped when a template hash collides, to vary the
	// name of the next ReplicaSet.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
}

// DeploymentConditionType names a Deployment condition.
type DeploymentConditionType string

// The Deployment conditions.
const (
	// DeploymentAvailable: at least replicas-maxUnavailable pods are available.
	DeploymentAvailable DeploymentConditionType = "Available"
	// DeploymentProgressing: the rollout is moving or has completed.
	DeploymentProgressing DeploymentConditionType = "Progressing"
	// DeploymentReplicaFailure: a pod could not be created or deleted.
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition is one condition of a Deployment.
type DeploymentCondition struct {
	Type               DeploymentConditionType `json:"type"`
	Status             meta.ConditionStatus    `json:"status"`
	LastUpdateTime     meta.Time               `json:"lastUpdateTime,omitzero"`
	LastTransitionTime meta.Time               `json:"lastTransitionTime,omitzero"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}
