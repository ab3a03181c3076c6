package core

import "github.com/orkit/orkit/api/meta"

// Namespace is a scope for names and for policy.
type Namespace struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            NamespaceSpec   `json:"spec,omitempty"`
	Status          NamespaceStatus `json:"status,omitempty"`
}

// NamespaceList is a list of namespaces.
type NamespaceList = meta.List[Namespace]

// FinalizerName names a namespace finalizer.
type FinalizerName string

// FinalizerKubernetes is the finalizer the namespace controller removes
// once everything in the namespace is gone.
const FinalizerKubernetes FinalizerName = "kubernetes"

// NamespaceSpec is the desired state of a namespace.
type NamespaceSpec struct {
	Finalizers []FinalizerName `json:"finalizers,omitempty"`
}

// NamespacePhase is the lifecycle phase of a namespace.
type NamespacePhase string

// The namespace phases.
const (
	NamespaceActive      NamespacePhase = "Active"
	NamespaceTerminating NamespacePhase = "Terminating"
)

// NamespaceTerminatingCause is the StatusCause type of the 403 that a
// create in a Terminating namespace gets (from the NamespaceLifecycle
// admission plugin), as in Kubernetes' core/v1; clients that create in
// namespaces (the ServiceAccount controller) recognize the refusal by it.
const NamespaceTerminatingCause = "NamespaceTerminating"

// NamespaceConditionType names a namespace condition.
type NamespaceConditionType string

// The namespace condition types the namespace controller sets.
const (
	NamespaceDeletionDiscoveryFailure NamespaceConditionType = "NamespaceDeletionDiscoveryFailure"
	NamespaceDeletionContentFailure   NamespaceConditionType = "NamespaceDeletionContentFailure"
	NamespaceDeletionGVParsingFailure NamespaceConditionType = "NamespaceDeletionGroupVersionParsingFailure"
	NamespaceContentRemaining         NamespaceConditionType = "NamespaceContentRemaining"
	NamespaceFinalizersRemaining      NamespaceConditionType = "NamespaceFinalizersRemaining"
)

// NamespaceStatus is the observed state of a namespace.
type NamespaceStatus struct {
	Phase      NamespacePhase       `json:"phase,omitempty"`
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// NamespaceCondition is one condition of a namespace.
type NamespaceCondition struct {
	Type               NamespaceConditionType `json:"type"`
	Status             meta.ConditionStatus   `json:"status"`
	LastTransitionTime meta.Time              `json:"lastTransitionTime,omitzero"`
	Reason             string                 `json:"reason,omitempty"`
	Message            string                 `json:"message,omitempty"`
}
