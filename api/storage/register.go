package storage

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds storage.k8s.io/v1 storageclasses (cluster-scoped, short
// name "sc"), csinodes, csidrivers, volumeattachments (status
// subresource), volumeattributesclasses (short name "vac"), all
// cluster-scoped, and csistoragecapacities (namespaced) to s. It panics
// if a kind is already registered.
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
	registerCSIKinds(s)
}

// registerCSIKinds adds the kinds CSI drivers and their sidecars use.
func registerCSIKinds(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:     GroupVersion().WithKind("CSIDriver"),
		Resource: "csidrivers",
		New:      func() meta.Object { return &CSIDriver{} },
		NewList:  func() meta.ListObject { return &CSIDriverList{} },
		Default:  func(o meta.Object) { DefaultCSIDriver(o.(*CSIDriver)) },
		Validate: func(o meta.Object) field.ErrorList { return ValidateCSIDriver(o.(*CSIDriver)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateCSIDriverUpdate(o.(*CSIDriver), old.(*CSIDriver))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("VolumeAttachment"),
		Resource:     "volumeattachments",
		Subresources: []string{"status"},
		New:          func() meta.Object { return &VolumeAttachment{} },
		NewList:      func() meta.ListObject { return &VolumeAttachmentList{} },
		Validate:     func(o meta.Object) field.ErrorList { return ValidateVolumeAttachment(o.(*VolumeAttachment)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateVolumeAttachmentUpdate(o.(*VolumeAttachment), old.(*VolumeAttachment))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:       GroupVersion().WithKind("VolumeAttributesClass"),
		Resource:   "volumeattributesclasses",
		ShortNames: []string{"vac"},
		New:        func() meta.Object { return &VolumeAttributesClass{} },
		NewList:    func() meta.ListObject { return &VolumeAttributesClassList{} },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateVolumeAttributesClass(o.(*VolumeAttributesClass)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateVolumeAttributesClassUpdate(o.(*VolumeAttributesClass), old.(*VolumeAttributesClass))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:       GroupVersion().WithKind("CSIStorageCapacity"),
		Resource:   "csistoragecapacities",
		Namespaced: true,
		New:        func() meta.Object { return &CSIStorageCapacity{} },
		NewList:    func() meta.ListObject { return &CSIStorageCapacityList{} },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateCSIStorageCapacity(o.(*CSIStorageCapacity)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateCSIStorageCapacityUpdate(o.(*CSIStorageCapacity), old.(*CSIStorageCapacity))
		},
	})
}
