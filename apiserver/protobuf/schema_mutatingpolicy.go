package protobuf

// mutatingPolicyMessages are admissionregistration/v1 generated.proto's
// MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding messages
// (sharing ParamKind, MatchResources, Variable, MatchCondition and
// ParamRef with the validating policies); the JSON names are the Go json
// tags of api/admissionregistration.
func mutatingPolicyMessages() map[string]fields {
	return map[string]fields{
		"admission.MutatingAdmissionPolicy": {1: objectMeta(), 2: msg("spec", "admission.MutatingAdmissionPolicySpec")},
		"admission.MutatingAdmissionPolicySpec": {
			1: msg("paramKind", "admission.ParamKind"), 2: msg("matchConstraints", "admission.MatchResources"),
			3: msgs("variables", "admission.Variable"), 4: msgs("mutations", "admission.Mutation"), 5: strp("failurePolicy"),
			6: msgs("matchConditions", "admission.MatchCondition"), 7: str("reinvocationPolicy"),
		},
		"admission.Mutation": {
			2: strp("patchType"), 3: msg("applyConfiguration", "admission.ApplyConfiguration"), 4: msg("jsonPatch", "admission.JSONPatch"),
		},
		"admission.ApplyConfiguration":             {1: str("expression")},
		"admission.JSONPatch":                      {1: str("expression")},
		"admission.MutatingAdmissionPolicyBinding": {1: objectMeta(), 2: msg("spec", "admission.MutatingAdmissionPolicyBindingSpec")},
		"admission.MutatingAdmissionPolicyBindingSpec": {
			1: str("policyName"), 2: msg("paramRef", "admission.ParamRef"), 3: msg("matchResources", "admission.MatchResources"),
		},
	}
}
