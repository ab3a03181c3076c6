package batch

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// PodFailurePolicyAction is what a matching pod failure policy rule does
// with a failed pod.
type PodFailurePolicyAction string

// The pod failure policy actions.
const (
	// PodFailurePolicyActionFailJob fails the Job (reason PodFailurePolicy)
	// and terminates its running pods.
	PodFailurePolicyActionFailJob PodFailurePolicyAction = "FailJob"
	// PodFailurePolicyActionFailIndex fails the pod's index without
	// retrying it (Jobs with backoffLimitPerIndex only).
	PodFailurePolicyActionFailIndex PodFailurePolicyAction = "FailIndex"
	// PodFailurePolicyActionIgnore does not count the failure towards
	// backoffLimit (or the index's backoffLimitPerIndex); a replacement pod
	// is created.
	PodFailurePolicyActionIgnore PodFailurePolicyAction = "Ignore"
	// PodFailurePolicyActionCount counts the failure as usual.
	PodFailurePolicyActionCount PodFailurePolicyAction = "Count"
)

// PodFailurePolicyOnExitCodesOperator relates a container's exit code to
// a rule's values.
type PodFailurePolicyOnExitCodesOperator string

// The exit code operators.
const (
	// PodFailurePolicyOnExitCodesOpIn matches an exit code among the values.
	PodFailurePolicyOnExitCodesOpIn PodFailurePolicyOnExitCodesOperator = "In"
	// PodFailurePolicyOnExitCodesOpNotIn matches a non-zero exit code not
	// among the values.
	PodFailurePolicyOnExitCodesOpNotIn PodFailurePolicyOnExitCodesOperator = "NotIn"
)

// PodFailurePolicy decides how a Job treats its failed pods: the first rule
// that matches a failed pod decides; a failure no rule matches counts.
type PodFailurePolicy struct {
	// Rules are checked in order; at most 20.
	Rules []PodFailurePolicyRule `json:"rules"`
}

// PodFailurePolicyRule matches a failed pod by its containers' exit codes
// or by its conditions (exactly one of the two).
type PodFailurePolicyRule struct {
	// Action is taken when the rule matches.
	Action PodFailurePolicyAction `json:"action"`
	// OnExitCodes matches the terminated containers' exit codes.
	OnExitCodes *PodFailurePolicyOnExitCodesRequirement `json:"onExitCodes,omitempty"`
	// OnPodConditions matches when any pattern matches a pod condition;
	// at most 20.
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty"`
}

// PodFailurePolicyOnExitCodesRequirement matches the exit codes of a
// failed pod's terminated containers and init containers (exit code 0 is
// never matched).
type PodFailurePolicyOnExitCodesRequirement struct {
	// ContainerName restricts the check to the container (or init
	// container) of that name; nil checks them all.
	ContainerName *string `json:"containerName,omitempty"`
	// Operator is In or NotIn.
	Operator PodFailurePolicyOnExitCodesOperator `json:"operator"`
	// Values are the exit codes, ordered, without duplicates; at most 255;
	// 0 is not allowed with In.
	Values []int32 `json:"values"`
}

// PodFailurePolicyOnPodConditionsPattern matches a pod condition of the
// type with the status (defaulted to True).
type PodFailurePolicyOnPodConditionsPattern struct {
	Type   core.PodConditionType `json:"type"`
	Status meta.ConditionStatus  `json:"status"`
}

// SuccessPolicy declares an Indexed Job succeeded before all its indexes
// did: when any rule is met, the Job gets SuccessCriteriaMet (reason
// SuccessPolicy), its remaining pods are terminated, and it completes.
type SuccessPolicy struct {
	// Rules; at least one, at most 20.
	Rules []SuccessPolicyRule `json:"rules"`
}

// SuccessPolicyRule is met when the succeeded indexes cover
// SucceededIndexes (all of them, or SucceededCount of them), or when
// SucceededCount indexes succeeded if SucceededIndexes is unset.
type SuccessPolicyRule struct {
	// SucceededIndexes is an interval list ("0,2-4") of indexes below
	// completions, in increasing order.
	SucceededIndexes *string `json:"succeededIndexes,omitempty"`
	// SucceededCount is how many (of SucceededIndexes, if set) must
	// succeed.
	SucceededCount *int32 `json:"succeededCount,omitempty"`
}
