package scheduling

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds scheduling.k8s.io/v1 priorityclasses (cluster-scoped, short
// name "pc") to s. It panics if the kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:       meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "PriorityClass"},
		Resource:   "priorityclasses",
		ShortNames: []string{"pc"},
		New:        func() meta.Object { return &PriorityClass{} },
		NewList:    func() meta.ListObject { return &PriorityClassList{} },
		Default:    func(o meta.Object) { DefaultPriorityClass(o.(*PriorityClass)) },
		Validate:   func(o meta.Object) field.ErrorList { return ValidatePriorityClass(o.(*PriorityClass)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidatePriorityClassUpdate(o.(*PriorityClass), old.(*PriorityClass))
		},
	})
}
