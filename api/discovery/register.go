package discovery

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds discovery.k8s.io/v1 endpointslices (namespaced) to s. It
// panics if EndpointSlice is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:       GroupVersion().WithKind("EndpointSlice"),
		Resource:   "endpointslices",
		Namespaced: true,
		New:        func() meta.Object { return &EndpointSlice{} },
		NewList:    func() meta.ListObject { return &EndpointSliceList{} },
		Default:    func(o meta.Object) { SetDefaults(o.(*EndpointSlice)) },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateEndpointSlice(o.(*EndpointSlice)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateEndpointSliceUpdate(o.(*EndpointSlice), old.(*EndpointSlice))
		},
	})
}
