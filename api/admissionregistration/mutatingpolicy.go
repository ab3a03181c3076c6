package admissionregistration

import "github.com/orkit/orkit/api/meta"

// MutatingAdmissionPolicy is a cluster-scoped set of CEL mutations,
// applied to the requests its bindings and matchConstraints select.
type MutatingAdmissionPolicy struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            MutatingAdmissionPolicySpec `json:"spec,omitempty"`
}

// MutatingAdmissionPolicyList is a list of MutatingAdmissionPolicies.
type MutatingAdmissionPolicyList = meta.List[MutatingAdmissionPolicy]

// MutatingAdmissionPolicySpec is what a policy changes and on what.
type MutatingAdmissionPolicySpec struct {
	// ParamKind, when set, is the kind of the parameter objects bindings
	// refer to.
	ParamKind *ParamKind `json:"paramKind,omitempty"`
	// MatchConstraints select the requests the policy may apply to
	// (CREATE, UPDATE and CONNECT only). Required, with resourceRules.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty"`
	// Variables are named CEL expressions the mutations may use.
	Variables []Variable `json:"variables,omitempty"`
	// Mutations are applied in order. At least one.
	Mutations []Mutation `json:"mutations,omitempty"`
	// FailurePolicy applies when a mutation cannot be evaluated or
	// applied (default Fail).
	FailurePolicy   *FailurePolicyType `json:"failurePolicy,omitempty"`
	MatchConditions []MatchCondition   `json:"matchConditions,omitempty"`
	// ReinvocationPolicy says whether the policy runs again when a later
	// mutation changed the object (Never or IfNeeded). Required.
	ReinvocationPolicy ReinvocationPolicyType `json:"reinvocationPolicy,omitempty"`
}

// PatchType is how a Mutation changes the object.
type PatchType string

// The patch types.
const (
	// PatchTypeApplyConfiguration merges the expression's object into the
	// request's object, as server-side apply merges an apply configuration.
	PatchTypeApplyConfiguration PatchType = "ApplyConfiguration"
	// PatchTypeJSONPatch applies the expression's list of JSON patch
	// operations.
	PatchTypeJSONPatch PatchType = "JSONPatch"
)

// Mutation is one change: ApplyConfiguration exactly when PatchType is
// ApplyConfiguration, JSONPatch exactly when it is JSONPatch.
type Mutation struct {
	PatchType          PatchType           `json:"patchType"`
	ApplyConfiguration *ApplyConfiguration `json:"applyConfiguration,omitempty"`
	JSONPatch          *JSONPatch          `json:"jsonPatch,omitempty"`
}

// ApplyConfiguration is a CEL expression building the object to merge
// (`Object{spec: Object.spec{replicas: 3}}`).
type ApplyConfiguration struct {
	Expression string `json:"expression,omitempty"`
}

// JSONPatch is a CEL expression building JSON patch operations
// (`[JSONPatch{op: "add", path: "/spec/replicas", value: 3}]`).
type JSONPatch struct {
	Expression string `json:"expression,omitempty"`
}

// MutatingAdmissionPolicyBinding applies a mutating policy, with
// parameters and further match limits.
type MutatingAdmissionPolicyBinding struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            MutatingAdmissionPolicyBindingSpec `json:"spec,omitempty"`
}

// MutatingAdmissionPolicyBindingList is a list of bindings.
type MutatingAdmissionPolicyBindingList = meta.List[MutatingAdmissionPolicyBinding]

// MutatingAdmissionPolicyBindingSpec names the policy, its parameters and
// the requests it applies to.
type MutatingAdmissionPolicyBindingSpec struct {
	PolicyName     string          `json:"policyName,omitempty"`
	ParamRef       *ParamRef       `json:"paramRef,omitempty"`
	MatchResources *MatchResources `json:"matchResources,omitempty"`
}

// DefaultMutatingAdmissionPolicy fills failurePolicy Fail and the
// defaults of matchConstraints.
func DefaultMutatingAdmissionPolicy(p *MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptrTo(Fail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

// DefaultMutatingAdmissionPolicyBinding fills the defaults of
// matchResources.
func DefaultMutatingAdmissionPolicyBinding(b *MutatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}
