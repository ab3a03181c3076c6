package policy

import "github.com/orkit/orkit/api/meta"

// PodDisruptionBudget bounds the voluntary disruption of the pods its
// selector matches: an eviction goes ahead only while
// status.disruptionsAllowed is above zero.
type PodDisruptionBudget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            PodDisruptionBudgetSpec   `json:"spec,omitempty"`
	Status          PodDisruptionBudgetStatus `json:"status,omitempty"`
}

// PodDisruptionBudgetList is a list of PodDisruptionBudgets.
type PodDisruptionBudgetList = meta.List[PodDisruptionBudget]

// UnhealthyPodEvictionPolicyType says when a pod that is not Ready may be
// evicted.
type UnhealthyPodEvictionPolicyType string

// The unhealthy pod eviction policies.
const (
	// IfHealthyBudget evicts a running but not Ready pod only while the
	// application is not disrupted (currentHealthy >= desiredHealthy);
	// the default.
	IfHealthyBudget UnhealthyPodEvictionPolicyType = "IfHealthyBudget"
	// AlwaysAllow evicts a running but not Ready pod whatever the budget
	// says.
	AlwaysAllow UnhealthyPodEvictionPolicyType = "AlwaysAllow"
)

// PodDisruptionBudgetSpec is the desired budget. At most one of
// MinAvailable and MaxUnavailable is set; each is a count or a
// percentage ("50%") of the expected pods.
type PodDisruptionBudgetSpec struct {
	// MinAvailable: an eviction is allowed if at least this many selected
	// pods stay healthy without the evicted one.
	MinAvailable *meta.IntOrString `json:"minAvailable,omitempty"`
	// Selector selects the budget's pods. In policy/v1 a nil selector
	// selects nothing and an empty one every pod of the namespace.
	Selector *meta.LabelSelector `json:"selector,omitempty"`
	// MaxUnavailable: an eviction is allowed if at most this many
	// selected pods are unhealthy after it.
	MaxUnavailable *meta.IntOrString `json:"maxUnavailable,omitempty"`
	// UnhealthyPodEvictionPolicy: IfHealthyBudget (nil) or AlwaysAllow.
	UnhealthyPodEvictionPolicy *UnhealthyPodEvictionPolicyType `json:"unhealthyPodEvictionPolicy,omitempty"`
}

// PodDisruptionBudgetStatus is the budget as the disruption controller
// last computed it, and the evictions the API server approved since.
type PodDisruptionBudgetStatus struct {
	// ObservedGeneration is the generation the status was computed for;
	// below metadata.generation evictions are refused (429) until the
	// controller catches up.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// DisruptedPods maps the names of pods the API server approved an
	// eviction for to the approval time; the controller counts them as
	// unhealthy until they are deleted or the entry expires.
	DisruptedPods map[string]meta.Time `json:"disruptedPods,omitempty"`
	// DisruptionsAllowed is how many evictions may go ahead now.
	DisruptionsAllowed int32 `json:"disruptionsAllowed"`
	// CurrentHealthy is the number of selected pods that are Ready.
	CurrentHealthy int32 `json:"currentHealthy"`
	// DesiredHealthy is the least number of healthy pods wanted.
	DesiredHealthy int32 `json:"desiredHealthy"`
	// ExpectedPods is the number of pods the budget counts on: the
	// replicas of their controllers, or the pod count.
	ExpectedPods int32 `json:"expectedPods"`
	// Conditions hold DisruptionAllowed.
	Conditions []meta.Condition `json:"conditions,omitempty"`
}
