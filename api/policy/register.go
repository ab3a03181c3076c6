package policy

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds policy/v1 PodDisruptionBudget to s as kubectl expects it:
// resource poddisruptionbudgets, short name pdb, namespaced, with status.
// Eviction is not registered: it is the body of the pods/eviction
// subresource, not a resource. It panics if the kind is already
// registered.
func Register(s *scheme.Scheme) {
	gv := meta.GroupVersion{Group: GroupName, Version: Version}
	s.MustRegister(scheme.Type{
		Kind: gv.WithKind("PodDisruptionBudget"), Resource: "poddisruptionbudgets", Namespaced: true,
		ShortNames: []string{"pdb"}, Subresources: []string{"status"},
		New:      func() meta.Object { return &PodDisruptionBudget{} },
		NewList:  func() meta.ListObject { return &PodDisruptionBudgetList{} },
		Validate: func(o meta.Object) field.ErrorList { return ValidatePodDisruptionBudget(o.(*PodDisruptionBudget)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidatePodDisruptionBudgetUpdate(o.(*PodDisruptionBudget), old.(*PodDisruptionBudget))
		},
	})
}
