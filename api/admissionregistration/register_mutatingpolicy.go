package admissionregistration

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// registerMutatingPolicies adds the v1 mutatingadmissionpolicies and
// mutatingadmissionpolicybindings (cluster-scoped, no status) to s.
func registerMutatingPolicies(s *scheme.Scheme) {
	gv := GroupVersion()
	s.MustRegister(scheme.Type{
		Kind:     gv.WithKind("MutatingAdmissionPolicy"),
		Resource: "mutatingadmissionpolicies",
		New:      func() meta.Object { return &MutatingAdmissionPolicy{} },
		NewList:  func() meta.ListObject { return &MutatingAdmissionPolicyList{} },
		Default:  func(o meta.Object) { DefaultMutatingAdmissionPolicy(o.(*MutatingAdmissionPolicy)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateMutatingAdmissionPolicy(o.(*MutatingAdmissionPolicy))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateMutatingAdmissionPolicyUpdate(o.(*MutatingAdmissionPolicy), old.(*MutatingAdmissionPolicy))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:     gv.WithKind("MutatingAdmissionPolicyBinding"),
		Resource: "mutatingadmissionpolicybindings",
		New:      func() meta.Object { return &MutatingAdmissionPolicyBinding{} },
		NewList:  func() meta.ListObject { return &MutatingAdmissionPolicyBindingList{} },
		Default:  func(o meta.Object) { DefaultMutatingAdmissionPolicyBinding(o.(*MutatingAdmissionPolicyBinding)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateMutatingAdmissionPolicyBinding(o.(*MutatingAdmissionPolicyBinding))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateMutatingAdmissionPolicyBindingUpdate(o.(*MutatingAdmissionPolicyBinding), old.(*MutatingAdmissionPolicyBinding))
		},
	})
}
