package apiextensions

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds apiextensions.k8s.io/v1 customresourcedefinitions
// (cluster-scoped, short names crd and crds, category api-extensions,
// with a status subresource) to s, with its defaulting and validation. It
// panics if the kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:         meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "CustomResourceDefinition"},
		Resource:     "customresourcedefinitions",
		ShortNames:   []string{"crd", "crds"},
		Categories:   []string{"api-extensions"},
		Subresources: []string{"status"},
		New:          func() meta.Object { return &CustomResourceDefinition{} },
		NewList:      func() meta.ListObject { return &CustomResourceDefinitionList{} },
		Default:      func(o meta.Object) { SetDefaults(o.(*CustomResourceDefinition)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateCustomResourceDefinition(o.(*CustomResourceDefinition))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateCustomResourceDefinitionUpdate(o.(*CustomResourceDefinition), old.(*CustomResourceDefinition))
		},
	})
}
