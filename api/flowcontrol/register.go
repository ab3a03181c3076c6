package flowcontrol

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds flowcontrol.apiserver.k8s.io/v1 flowschemas and
// prioritylevelconfigurations (both cluster-scoped, with status
// subresources) to s. It panics if either kind is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("FlowSchema"),
		Resource:     "flowschemas",
		Subresources: []string{"status"},
		New:          func() meta.Object { return &FlowSchema{} },
		NewList:      func() meta.ListObject { return &FlowSchemaList{} },
		Default:      func(o meta.Object) { SetDefaultsFlowSchema(o.(*FlowSchema)) },
		Validate:     func(o meta.Object) field.ErrorList { return ValidateFlowSchema(o.(*FlowSchema)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateFlowSchemaUpdate(o.(*FlowSchema), old.(*FlowSchema))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("PriorityLevelConfiguration"),
		Resource:     "prioritylevelconfigurations",
		Subresources: []string{"status"},
		New:          func() meta.Object { return &PriorityLevelConfiguration{} },
		NewList:      func() meta.ListObject { return &PriorityLevelConfigurationList{} },
		Default:      func(o meta.Object) { SetDefaultsPriorityLevelConfiguration(o.(*PriorityLevelConfiguration)) },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidatePriorityLevelConfiguration(o.(*PriorityLevelConfiguration))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidatePriorityLevelConfigurationUpdate(o.(*PriorityLevelConfiguration), old.(*PriorityLevelConfiguration))
		},
	})
}
