package storagemigration

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds storagemigration.k8s.io/v1 storageversionmigrations
// (cluster-scoped, status subresource) to s. It panics if the kind is
// already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("StorageVersionMigration"),
		Resource:     "storageversionmigrations",
		Subresources: []string{"status"},
		New:          func() meta.Object { return &StorageVersionMigration{} },
		NewList:      func() meta.ListObject { return &StorageVersionMigrationList{} },
		Validate: func(o meta.Object) field.ErrorList {
			return ValidateStorageVersionMigration(o.(*StorageVersionMigration))
		},
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateStorageVersionMigrationUpdate(o.(*StorageVersionMigration), old.(*StorageVersionMigration))
		},
	})
}
