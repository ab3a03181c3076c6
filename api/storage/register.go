package storage

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds storage.k8s.io/v1 storageclasses (cluster-scoped, short
// name "sc") and csinodes (cluster-scoped) to s. It panics if a kind is
// already registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:       GroupVersion().WithKind("StorageClass"),
		Resource:   "storageclasses",
		ShortNames: []string{"sc"},
		New:        func() meta.Object { return &StorageClass{} },
		NewList:    func() meta.ListObject { return &StorageClassList{} },
		Default:    func(o meta.Object) { DefaultStorageClass(o.(*StorageClass)) },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateStorageClass(o.(*StorageClass)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateStorageClassUpdate(o.(*StorageClass), old.(*StorageClass))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:     GroupVersion().WithKind("CSINode"),
		Resource: "csinodes",
		New:      func() meta.Object { return &CSINode{} },
		NewList:  func() meta.ListObject { return &CSINodeList{} },
		Validate: func(o meta.Object) field.ErrorList { return ValidateCSINode(o.(*CSINode)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateCSINodeUpdate(o.(*CSINode), old.(*CSINode))
		},
	})
}
