package autoscaling

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds autoscaling/v2 horizontalpodautoscalers (namespaced, short
// name "hpa", category "all", status subresource) to s. autoscaling/v1
// HorizontalPodAutoscalerV1 is not registered: it is a view of the same
// objects that the API server converts (ToV2, FromV2). It panics if the
// kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:         GroupVersionV2().WithKind("HorizontalPodAutoscaler"),
		Resource:     "horizontalpodautoscalers",
		Namespaced:   true,
		ShortNames:   []string{"hpa"},
		Categories:   []string{"all"},
		Subresources: []string{"status"},
		New:          func() meta.Object { return &HorizontalPodAutoscaler{} },
		NewList:      func() meta.ListObject { return &HorizontalPodAutoscalerList{} },
		Default:      func(o meta.Object) { DefaultHorizontalPodAutoscaler(o.(*HorizontalPodAutoscaler)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateHorizontalPodAutoscaler(o.(*HorizontalPodAutoscaler))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateHorizontalPodAutoscalerUpdate(o.(*HorizontalPodAutoscaler), old.(*HorizontalPodAutoscaler))
		},
	})
}
