package apiserver

import (
	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/meta"
)

// mutatingPolicyTable and mutatingPolicyBindingTable are kube-apiserver's
// printers of MutatingAdmissionPolicies (number of mutations, paramKind)
// and their bindings (policy, paramRef).
var (
	mutatingPolicyTable = &TableConvertor{
		Columns: []TableColumn{
			col("Mutations", "integer", "Mutation indicates the number of mutations rules defined in this configuration", 0),
			col("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy", 0),
		},
		Cells: func(obj meta.Object) []any {
			p := obj.(*admissionregistration.MutatingAdmissionPolicy)
			kind := "<unset>"
			if k := p.Spec.ParamKind; k != nil {
				kind = k.APIVersion + "/" + k.Kind
			}
			return []any{int64(len(p.Spec.Mutations)), kind}
		},
	}
	mutatingPolicyBindingTable = &TableConvertor{
		Columns: []TableColumn{
			col("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to", 0),
			col("ParamRef", "string", "ParamRef indicates the param resource which sets the configuration param", 0),
		},
		Cells: func(obj meta.Object) []any {
			b := obj.(*admissionregistration.MutatingAdmissionPolicyBinding)
			return []any{b.Spec.PolicyName, paramRefCell(b.Spec.ParamRef)}
		},
	}
)

// addMutatingPolicyExtras adds the tables of the mutating admission
// policy resources to m.
func addMutatingPolicyExtras(m map[meta.GroupVersionResource]func(*Resource)) {
	m[admissionGVR("mutatingadmissionpolicies")] = func(r *Resource) { r.Table = mutatingPolicyTable }
	m[admissionGVR("mutatingadmissionpolicybindings")] = func(r *Resource) { r.Table = mutatingPolicyBindingTable }
}
