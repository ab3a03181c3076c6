package apiregistration

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds apiregistration.k8s.io/v1 apiservices (cluster-scoped,
// category "api-extensions", status subresource) to s. It panics if the
// kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("APIService"),
		Resource:     "apiservices",
		Categories:   []string{"api-extensions"},
		Subresources: []string{"status"},
		New:          func() meta.Object { return &APIService{} },
		NewList:      func() meta.ListObject { return &APIServiceList{} },
		Default:      func(o meta.Object) { DefaultAPIService(o.(*APIService)) },
		Validate:     func(o meta.Object) field.ErrorList { return ValidateAPIService(o.(*APIService)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateAPIServiceUpdate(o.(*APIService), old.(*APIService))
		},
	})
}
