package node

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds node.k8s.io/v1 runtimeclasses (cluster-scoped) to s. It
// panics if the kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:     meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "RuntimeClass"},
		Resource: "runtimeclasses",
		New:      func() meta.Object { return &RuntimeClass{} },
		NewList:  func() meta.ListObject { return &RuntimeClassList{} },
		Validate: func(o meta.Object) field.ErrorList { return ValidateRuntimeClass(o.(*RuntimeClass)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateRuntimeClassUpdate(o.(*RuntimeClass), old.(*RuntimeClass))
		},
	})
}
