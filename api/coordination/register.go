package coordination

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds coordination.k8s.io/v1 leases (namespaced, no short names,
// no subresources) to s. It panics if Lease is already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:       meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "Lease"},
		Resource:   "leases",
		Namespaced: true,
		New:        func() meta.Object { return &Lease{} },
		NewList:    func() meta.ListObject { return &LeaseList{} },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateLease(o.(*Lease)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateLeaseUpdate(o.(*Lease), old.(*Lease))
		},
	})
}
