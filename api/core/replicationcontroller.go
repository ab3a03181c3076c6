package core

import "github.com/orkit/orkit/api/meta"

// ReplicationController keeps a number of identical pods running: the
// core/v1 ancestor of apps/v1 ReplicaSet, selecting its pods with a plain
// label map.
type ReplicationController struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ReplicationControllerSpec   `json:"spec,omitempty"`
	Status          ReplicationControllerStatus `json:"status,omitempty"`
}

// ReplicationControllerList is a list of ReplicationControllers.
type ReplicationControllerList = meta.List[ReplicationController]

// ReplicationControllerSpec is the desired state of a ReplicationController.
type ReplicationControllerSpec struct {
	// Replicas is the desired number of pods (default 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReadySeconds a pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// Selector selects the pods by equality on every label; it defaults to
	// the template's labels and must match them.
	Selector map[string]string `json:"selector,omitempty"`
	// Template is the pod to create; required.
	Template *PodTemplateSpec `json:"template,omitempty"`
}

// ReplicationControllerStatus is the observed state of a
// ReplicationController.
type ReplicationControllerStatus struct {
	Replicas             int32                            `json:"replicas"`
	FullyLabeledReplicas int32                            `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                            `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                            `json:"availableReplicas,omitempty"`
	ObservedGeneration   int64                            `json:"observedGeneration,omitempty"`
	Conditions           []ReplicationControllerCondition `json:"conditions,omitempty"`
}

// ReplicationControllerConditionType names a ReplicationController condition.
type ReplicationControllerConditionType string

// ReplicationControllerReplicaFailure: a pod could not be created or deleted.
const ReplicationControllerReplicaFailure ReplicationControllerConditionType = "ReplicaFailure"

// ReplicationControllerCondition is one condition of a ReplicationController.
type ReplicationControllerCondition struct {
	Type               ReplicationControllerConditionType `json:"type"`
	Status             meta.ConditionStatus               `json:"status"`
	LastTransitionTime meta.Time                          `json:"lastTransitionTime,omitzero"`
	Reason             string                             `json:"reason,omitempty"`
	Message            string                             `json:"message,omitempty"`
}

// PodTemplate is a stored pod template (core/v1), for tools that keep
// templates apart from the controllers that use them.
type PodTemplate struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Template        PodTemplateSpec `json:"template,omitempty"`
}

// PodTemplateList is a list of PodTemplates.
type PodTemplateList = meta.List[PodTemplate]

// DefaultReplicationController fills rc's unset fields as Kubernetes' core/v1
// does: the selector and the object's labels from the template's labels
// when empty, replicas 1, and the pod template's defaults.
func DefaultReplicationController(rc *ReplicationController) {
	if t := rc.Spec.Template; t != nil && t.Labels != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = copyLabels(t.Labels)
		}
		if len(rc.Labels) == 0 {
			rc.Labels = copyLabels(t.Labels)
		}
	}
	if rc.Spec.Replicas == nil {
		one := int32(1)
		rc.Spec.Replicas = &one
	}
	if rc.Spec.Template != nil {
		DefaultPodTemplateSpec(rc.Spec.Template)
	}
}

// DefaultPodTemplate fills the defaults of t's pod template.
func DefaultPodTemplate(t *PodTemplate) { DefaultPodTemplateSpec(&t.Template) }

func copyLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
