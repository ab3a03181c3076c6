package admissionregistration

import "github.com/orkit/orkit/api/meta"

// ValidationAction is what a binding does with a failed validation.
type ValidationAction string

// The validation actions.
const (
	// Deny rejects the request.
	Deny ValidationAction = "Deny"
	// Warn sends the failure to the client as a warning.
	Warn ValidationAction = "Warn"
	// Audit records the failure in the audit event's annotations.
	Audit ValidationAction = "Audit"
)

// ParameterNotFoundActionType says what a binding does when its paramRef
// selects no parameter object.
type ParameterNotFoundActionType string

// The parameter-not-found actions.
const (
	AllowAction ParameterNotFoundActionType = "Allow"
	DenyAction  ParameterNotFoundActionType = "Deny"
)

// ValidatingAdmissionPolicy is a cluster-scoped set of CEL validations,
// applied to the requests its bindings and matchConstraints select.
type ValidatingAdmissionPolicy struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ValidatingAdmissionPolicySpec   `json:"spec,omitempty"`
	Status          ValidatingAdmissionPolicyStatus `json:"status,omitempty"`
}

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicies.
type ValidatingAdmissionPolicyList = meta.List[ValidatingAdmissionPolicy]

// ValidatingAdmissionPolicySpec is what a policy checks and on what.
type ValidatingAdmissionPolicySpec struct {
	// ParamKind, when set, is the kind of the parameter objects bindings
	// refer to; CEL sees the one a binding selects as params.
	ParamKind *ParamKind `json:"paramKind,omitempty"`
	// MatchConstraints select the requests the policy may apply to.
	// Required; its resourceRules must not be empty.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty"`
	// Validations are CEL expressions that must all evaluate to true.
	Validations []Validation `json:"validations,omitempty"`
	// FailurePolicy applies when an expression cannot be evaluated or the
	// parameters cannot be found (default Fail).
	FailurePolicy    *FailurePolicyType `json:"failurePolicy,omitempty"`
	AuditAnnotations []AuditAnnotation  `json:"auditAnnotations,omitempty"`
	MatchConditions  []MatchCondition   `json:"matchConditions,omitempty"`
	// Variables are named CEL expressions the others may use as
	// variables.<name>.
	Variables []Variable `json:"variables,omitempty"`
}

// ParamKind names the kind of a policy's parameter objects.
type ParamKind struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// Validation is one CEL expression and the message when it is false.
type Validation struct {
	Expression        string             `json:"expression"`
	Message           string             `json:"message,omitempty"`
	Reason            *meta.StatusReason `json:"reason,omitempty"`
	MessageExpression string             `json:"messageExpression,omitempty"`
}

// Variable is a named CEL expression.
type Variable struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

// AuditAnnotation is an audit annotation computed by a CEL expression.
type AuditAnnotation struct {
	Key             string `json:"key"`
	ValueExpression string `json:"valueExpression"`
}

// MatchResources select requests by namespace and object labels and by
// resource rules.
type MatchResources struct {
	NamespaceSelector    *meta.LabelSelector       `json:"namespaceSelector,omitempty"`
	ObjectSelector       *meta.LabelSelector       `json:"objectSelector,omitempty"`
	ResourceRules        []NamedRuleWithOperations `json:"resourceRules,omitempty"`
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty"`
	MatchPolicy          *MatchPolicyType          `json:"matchPolicy,omitempty"`
}

// ValidatingAdmissionPolicyStatus is what the API server found checking
// the policy's expressions.
type ValidatingAdmissionPolicyStatus struct {
	ObservedGeneration int64            `json:"observedGeneration,omitempty"`
	TypeChecking       *TypeChecking    `json:"typeChecking,omitempty"`
	Conditions         []meta.Condition `json:"conditions,omitempty"`
}

// TypeChecking holds the warnings of the type check of a policy's
// expressions.
type TypeChecking struct {
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty"`
}

// ExpressionWarning is one type-check warning of the expression at FieldRef.
type ExpressionWarning struct {
	FieldRef string `json:"fieldRef"`
	Warning  string `json:"warning"`
}

// ValidatingAdmissionPolicyBinding applies a policy, with parameters and
// further match limits, taking the given actions on failures.
type ValidatingAdmissionPolicyBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty"`
}

// ValidatingAdmissionPolicyBindingList is a list of bindings.
type ValidatingAdmissionPolicyBindingList = meta.List[ValidatingAdmissionPolicyBinding]

// ValidatingAdmissionPolicyBindingSpec names the policy, its parameters,
// the requests it applies to and the actions on a failed validation.
type ValidatingAdmissionPolicyBindingSpec struct {
	PolicyName        string             `json:"policyName,omitempty"`
	ParamRef          *ParamRef          `json:"paramRef,omitempty"`
	MatchResources    *MatchResources    `json:"matchResources,omitempty"`
	ValidationActions []ValidationAction `json:"validationActions,omitempty"`
}

// ParamRef selects the parameter objects of a binding: one by name or
// several by selector, in a namespace (empty means the request's, for a
// namespaced paramKind).
type ParamRef struct {
	Name                    string                       `json:"name,omitempty"`
	Namespace               string                       `json:"namespace,omitempty"`
	Selector                *meta.LabelSelector          `json:"selector,omitempty"`
	ParameterNotFoundAction *ParameterNotFoundActionType `json:"parameterNotFoundAction,omitempty"`
}
