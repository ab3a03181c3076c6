package policy

// GroupName is the API group of every kind in this package.
const GroupName = "policy"

// Version is the API version of every kind in this package.
const Version = "v1"

// DisruptionAllowedCondition is the PodDisruptionBudget condition that
// says whether an eviction may go ahead now (status True) or not.
const DisruptionAllowedCondition = "DisruptionAllowed"

// Reasons of the DisruptionAllowed condition.
const (
	// SyncFailedReason: the disruption controller could not compute the
	// budget's status (for example, a pod's controller has no scale); no
	// disruption is allowed.
	SyncFailedReason = "SyncFailed"
	// SufficientPodsReason: enough pods are healthy for a disruption.
	SufficientPodsReason = "SufficientPods"
	// InsufficientPodsReason: a disruption would leave too few healthy
	// pods.
	InsufficientPodsReason = "InsufficientPods"
)

// DisruptionBudgetCause is the StatusCause type of an eviction refused
// (429) because a PodDisruptionBudget allows no disruption now.
const DisruptionBudgetCause = "DisruptionBudget"

// MaxDisruptedPodSize bounds status.disruptedPods: the API server refuses
// evictions under a budget whose map is larger (evictions approved but
// not yet seen by the disruption controller), as Kubernetes does.
const MaxDisruptedPodSize = 2000
