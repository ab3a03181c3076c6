package admissionregistration

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// GroupVersion returns admissionregistration.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: V1} }

// Register adds admissionregistration.k8s.io/v1alpha1
// initializerconfigurations and the v1 kinds (mutating and validating
// webhook configurations, validating admission policies with a status
// subresource, and their bindings, mutating admission policies and their
// bindings; all cluster-scoped, no short names) to s. It panics if a kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:     meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "InitializerConfiguration"},
		Resource: "initializerconfigurations",
		New:      func() meta.Object { return &InitializerConfiguration{} },
		NewList:  func() meta.ListObject { return &InitializerConfigurationList{} },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateInitializerConfiguration(o.(*InitializerConfiguration))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateInitializerConfigurationUpdate(o.(*InitializerConfiguration), old.(*InitializerConfiguration))
		},
	})
	registerV1(s)
	registerMutatingPolicies(s)
}

func registerV1(s *scheme.Scheme) {
	gv := GroupVersion()
	s.MustRegister(scheme.Type{
		Kind:     gv.WithKind("MutatingWebhookConfiguration"),
		Resource: "mutatingwebhookconfigurations",
		New:      func() meta.Object { return &MutatingWebhookConfiguration{} },
		NewList:  func() meta.ListObject { return &MutatingWebhookConfigurationList{} },
		Default:  func(o meta.Object) { DefaultMutatingWebhookConfiguration(o.(*MutatingWebhookConfiguration)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateMutatingWebhookConfiguration(o.(*MutatingWebhookConfiguration))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateMutatingWebhookConfigurationUpdate(o.(*MutatingWebhookConfiguration), old.(*MutatingWebhookConfiguration))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:     gv.WithKind("ValidatingWebhookConfiguration"),
		Resource: "validatingwebhookconfigurations",
		New:      func() meta.Object { return &ValidatingWebhookConfiguration{} },
		NewList:  func() meta.ListObject { return &ValidatingWebhookConfigurationList{} },
		Default:  func(o meta.Object) { DefaultValidatingWebhookConfiguration(o.(*ValidatingWebhookConfiguration)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateValidatingWebhookConfiguration(o.(*ValidatingWebhookConfiguration))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateValidatingWebhookConfigurationUpdate(o.(*ValidatingWebhookConfiguration), old.(*ValidatingWebhookConfiguration))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:         gv.WithKind("ValidatingAdmissionPolicy"),
		Resource:     "validatingadmissionpolicies",
		Subresources: []string{"status"},
		New:          func() meta.Object { return &ValidatingAdmissionPolicy{} },
		NewList:      func() meta.ListObject { return &ValidatingAdmissionPolicyList{} },
		Default:      func(o meta.Object) { DefaultValidatingAdmissionPolicy(o.(*ValidatingAdmissionPolicy)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateValidatingAdmissionPolicy(o.(*ValidatingAdmissionPolicy))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateValidatingAdmissionPolicyUpdate(o.(*ValidatingAdmissionPolicy), old.(*ValidatingAdmissionPolicy))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:     gv.WithKind("ValidatingAdmissionPolicyBinding"),
		Resource: "validatingadmissionpolicybindings",
		New:      func() meta.Object { return &ValidatingAdmissionPolicyBinding{} },
		NewList:  func() meta.ListObject { return &ValidatingAdmissionPolicyBindingList{} },
		Default:  func(o meta.Object) { DefaultValidatingAdmissionPolicyBinding(o.(*ValidatingAdmissionPolicyBinding)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateValidatingAdmissionPolicyBinding(o.(*ValidatingAdmissionPolicyBinding))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateValidatingAdmissionPolicyBindingUpdate(o.(*ValidatingAdmissionPolicyBinding), old.(*ValidatingAdmissionPolicyBinding))
		},
	})
}
