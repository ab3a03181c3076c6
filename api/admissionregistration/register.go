package admissionregistration

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds admissionregistration.k8s.io/v1alpha1
// initializerconfigurations (cluster-scoped, no short names) to s. It panics
// if the kind is already registered.
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
}
