package dra

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// GroupName and Version name the API group.
const (
	GroupName = "resource.k8s.io"
	Version   = "v1"
)

// GroupVersion returns resource.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// Register adds the resource.k8s.io/v1 kinds to s: deviceclasses,
// resourceslices and devicetaintrules (cluster-scoped; the rules with a
// status subresource), resourceclaims (namespaced, with status) and
// resourceclaimtemplates (namespaced). It panics if a kind is already
// registered.
func Register(s *scheme.Scheme) {
	s.MustRegister(scheme.Type{
		Kind:     GroupVersion().WithKind("DeviceClass"),
		Resource: "deviceclasses",
		New:      func() meta.Object { return &DeviceClass{} },
		NewList:  func() meta.ListObject { return &DeviceClassList{} },
		Validate: func(o meta.Object) field.ErrorList { return ValidateDeviceClass(o.(*DeviceClass)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateDeviceClassUpdate(o.(*DeviceClass), old.(*DeviceClass))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("ResourceClaim"),
		Resource:     "resourceclaims",
		Namespaced:   true,
		Subresources: []string{"status"},
		New:          func() meta.Object { return &ResourceClaim{} },
		NewList:      func() meta.ListObject { return &ResourceClaimList{} },
		Default:      func(o meta.Object) { DefaultResourceClaim(o.(*ResourceClaim)) },
		Validate:     func(o meta.Object) field.ErrorList { return ValidateResourceClaim(o.(*ResourceClaim)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateResourceClaimUpdate(o.(*ResourceClaim), old.(*ResourceClaim))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:       GroupVersion().WithKind("ResourceClaimTemplate"),
		Resource:   "resourceclaimtemplates",
		Namespaced: true,
		New:        func() meta.Object { return &ResourceClaimTemplate{} },
		NewList:    func() meta.ListObject { return &ResourceClaimTemplateList{} },
		Default:    func(o meta.Object) { DefaultResourceClaimSpec(&o.(*ResourceClaimTemplate).Spec.Spec) },
		Validate:   func(o meta.Object) field.ErrorList { return ValidateResourceClaimTemplate(o.(*ResourceClaimTemplate)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateResourceClaimTemplateUpdate(o.(*ResourceClaimTemplate), old.(*ResourceClaimTemplate))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:     GroupVersion().WithKind("ResourceSlice"),
		Resource: "resourceslices",
		New:      func() meta.Object { return &ResourceSlice{} },
		NewList:  func() meta.ListObject { return &ResourceSliceList{} },
		Default:  func(o meta.Object) { DefaultResourceSlice(o.(*ResourceSlice)) },
		Validate: func(o meta.Object) field.ErrorList { return ValidateResourceSlice(o.(*ResourceSlice)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateResourceSliceUpdate(o.(*ResourceSlice), old.(*ResourceSlice))
		},
	})
	s.MustRegister(scheme.Type{
		Kind:         GroupVersion().WithKind("DeviceTaintRule"),
		Resource:     "devicetaintrules",
		Subresources: []string{"status"},
		New:          func() meta.Object { return &DeviceTaintRule{} },
		NewList:      func() meta.ListObject { return &DeviceTaintRuleList{} },
		Default:      func(o meta.Object) { DefaultDeviceTaintRule(o.(*DeviceTaintRule)) },
		Validate:     func(o meta.Object) field.ErrorList { return ValidateDeviceTaintRule(o.(*DeviceTaintRule)) },
		ValidateUpdate: func(o, old meta.Object) field.ErrorList {
			return ValidateDeviceTaintRuleUpdate(o.(*DeviceTaintRule), old.(*DeviceTaintRule))
		},
	})
}
