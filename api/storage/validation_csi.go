package storage

import (
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// Limits on a VolumeAttachment's status, as kube-apiserver's.
const (
	maxAttachmentMetadataSize = 256 * (1 << 10)
	maxVolumeErrorMessageSize = 1024
)

// Limits on a CSIDriver's token requests, in seconds.
const (
	minTokenExpirationSeconds = 10 * 60
	maxTokenExpirationSeconds = 1 << 32
)

var (
	supportedFSGroupPolicies = []string{string(FileFSGroupPolicy), string(NoneFSGroupPolicy), string(ReadWriteOnceWithFSTypeFSGroupPolicy)}
	supportedLifecycleModes  = []string{string(VolumeLifecyclePersistent), string(VolumeLifecycleEphemeral)}
)

// ValidateVolumeAttachment checks a VolumeAttachment as kube-apiserver
// does: a DNS-subdomain name, a CSI-driver-name attacher, exactly one
// source (a valid PersistentVolume name or an inline CSI volume spec), a
// DNS-subdomain node name, and a status within the size limits.
func ValidateVolumeAttachment(va *VolumeAttachment) field.ErrorList {
	errs := validation.ValidateObjectMeta(&va.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	errs = append(errs, validateCSIDriverName(va.Spec.Attacher, sp.Child("attacher"))...)
	errs = append(errs, validateAttachmentSource(&va.Spec.Source, sp.Child("source"))...)
	for _, msg := range validation.NameIsDNSSubdomain(va.Spec.NodeName, false) {
		errs = append(errs, field.Invalid(sp.Child("nodeName"), va.Spec.NodeName, msg))
	}
	return append(errs, validateAttachmentStatus(&va.Status, field.NewPath("status"))...)
}

// ValidateVolumeAttachmentUpdate checks va as a replacement for old:
// besides ValidateVolumeAttachment, the spec is immutable.
func ValidateVolumeAttachmentUpdate(va, old *VolumeAttachment) field.ErrorList {
	errs := ValidateVolumeAttachment(va)
	return append(errs, validation.ValidateImmutableField(va.Spec, old.Spec, field.NewPath("spec"))...)
}

func validateAttachmentSource(src *VolumeAttachmentSource, p *field.Path) field.ErrorList {
	const oneOf = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
	switch {
	case src.InlineVolumeSpec == nil && src.PersistentVolumeName == nil:
		return field.ErrorList{field.Required(p, oneOf)}
	case src.InlineVolumeSpec != nil && src.PersistentVolumeName != nil:
		return field.ErrorList{field.Forbidden(p, oneOf)}
	case src.PersistentVolumeName != nil:
		name, np := *src.PersistentVolumeName, p.Child("persistentVolumeName")
		if name == "" {
			return field.ErrorList{field.Required(np, "must specify non empty persistentVolumeName")}
		}
		var errs field.ErrorList
		for _, msg := range validation.NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(np, name, msg))
		}
		return errs
	}
	return validateInlineVolumeSpec(src.InlineVolumeSpec, p.Child("inlineVolumeSpec"))
}

// validateInlineVolumeSpec checks a pod's inline volume as a CSI
// PersistentVolume spec, as kube-apiserver's ValidatePersistentVolumeSpec
// does for inline volumes: a CSI source and nothing a real volume owns
// (claim, capacity, node affinity, class, a reclaim policy but Retain, a
// volume mode but Filesystem).
func validateInlineVolumeSpec(spec *core.PersistentVolumeSpec, p *field.Path) field.ErrorList {
	const inline = "may not be specified in the context of inline volumes"
	var errs field.ErrorList
	if spec.ClaimRef != nil {
		errs = append(errs, field.Forbidden(p.Child("claimRef"), inline))
	}
	if len(spec.Capacity) != 0 {
		errs = append(errs, field.Forbidden(p.Child("capacity"), inline))
	}
	if spec.NodeAffinity != nil {
		errs = append(errs, field.Forbidden(p.Child("nodeAffinity"), inline))
	}
	if spec.StorageClassName != "" {
		errs = append(errs, field.Forbidden(p.Child("storageClassName"), inline))
	}
	if r := spec.PersistentVolumeReclaimPolicy; r != "" && r != core.PersistentVolumeReclaimRetain {
		errs = append(errs, field.Forbidden(p.Child("persistentVolumeReclaimPolicy"), "may only be Retain in the context of inline volumes"))
	}
	if m := spec.VolumeMode; m != nil && *m != core.PersistentVolumeFilesystem {
		errs = append(errs, field.Forbidden(p.Child("volumeMode"), "may not specify volumeMode other than Filesystem in the context of inline volumes"))
	}
	if len(spec.AccessModes) == 0 {
		errs = append(errs, field.Required(p.Child("accessModes"), ""))
	}
	src := &spec.PersistentVolumeSource
	if src.HostPath != nil || src.NFS != nil || src.Local != nil {
		errs = append(errs, field.Forbidden(p, "may not specify a volume type other than csi in the context of inline volumes"))
	}
	if src.CSI == nil {
		return append(errs, field.Required(p.Child("csi"), "has to be specified in the context of inline volumes"))
	}
	if src.CSI.Driver == "" {
		errs = append(errs, field.Required(p.Child("csi", "driver"), ""))
	}
	if src.CSI.VolumeHandle == "" {
		errs = append(errs, field.Required(p.Child("csi", "volumeHandle"), ""))
	}
	return errs
}

func validateAttachmentStatus(st *VolumeAttachmentStatus, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for k, v := range st.AttachmentMetadata {
		size += len(k) + len(v)
	}
	if size > maxAttachmentMetadataSize {
		errs = append(errs, field.TooLong(p.Child("attachmentMetadata"), "", maxAttachmentMetadataSize))
	}
	errs = append(errs, validateVolumeError(st.AttachError, p.Child("attachError"))...)
	return append(errs, validateVolumeError(st.DetachError, p.Child("detachError"))...)
}

func validateVolumeError(e *VolumeError, p *field.Path) field.ErrorList {
	if e == nil {
		return nil
	}
	var errs field.ErrorList
	if len(e.Message) > maxVolumeErrorMessageSize {
		errs = append(errs, field.TooLong(p.Child("message"), "", maxVolumeErrorMessageSize))
	}
	if e.ErrorCode != nil && *e.ErrorCode < 0 {
		errs = append(errs, field.Invalid(p.Child("errorCode"), *e.ErrorCode,
			fmt.Sprintf("must be between %d and %d, inclusive", 0, math.MaxInt32)))
	}
	return errs
}

// ValidateCSIDriver checks a (defaulted) CSIDriver as kube-apiserver
// does: a DNS-subdomain name; attachRequired, podInfoOnMount,
// storageCapacity, seLinuxMount and preventPodSchedulingIfMissing set; a
// known fsGroupPolicy and lifecycle modes; token requests with distinct
// audiences and lifetimes from 10 minutes to 2^32 seconds; a node
// allocatable period of at least 10 seconds; serviceAccountTokenInSecrets
// only with token requests.
func ValidateCSIDriver(d *CSIDriver) field.ErrorList {
	errs := validation.ValidateObjectMeta(&d.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateCSIDriverSpec(&d.Spec, field.NewPath("spec"))...)
}

// ValidateCSIDriverUpdate checks d as a replacement for old: besides the
// spec checks, attachRequired and volumeLifecycleModes are immutable (the
// error names attachRequired "attachedRequired", as kube-apiserver does).
func ValidateCSIDriverUpdate(d, old *CSIDriver) field.ErrorList {
	sp := field.NewPath("spec")
	errs := validation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateCSIDriverSpec(&d.Spec, sp)...)
	if !validation.SemanticEqual(d.Spec.AttachRequired, old.Spec.AttachRequired) {
		// kube-apiserver shows the pointed-to value, or null.
		var shown any = "null"
		if d.Spec.AttachRequired != nil {
			shown = *d.Spec.AttachRequired
		}
		errs = append(errs, field.Invalid(sp.Child("attachedRequired"), shown, validation.FieldImmutableErrorMsg))
	}
	return append(errs, validation.ValidateImmutableField(d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, sp.Child("volumeLifecycleModes"))...)
}

func validateCSIDriverSpec(s *CSIDriverSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	required := []struct {
		v    *bool
		name string
	}{
		{s.AttachRequired, "attachedRequired"}, {s.PodInfoOnMount, "podInfoOnMount"},
		{s.StorageCapacity, "storageCapacity"}, {s.SELinuxMount, "seLinuxMount"},
		{s.PreventPodSchedulingIfMissing, "preventPodSchedulingIfMissing"},
	}
	for _, r := range required {
		if r.v == nil {
			errs = append(errs, field.Required(p.Child(r.name), ""))
		}
	}
	if f := s.FSGroupPolicy; f != nil && !slices.Contains(supportedFSGroupPolicies, string(*f)) {
		errs = append(errs, field.NotSupported(p.Child("fsGroupPolicy"), string(*f), supportedFSGroupPolicies))
	}
	errs = append(errs, validateTokenRequests(s.TokenRequests, p.Child("tokenRequests"))...)
	for _, m := range s.VolumeLifecycleModes {
		if !slices.Contains(supportedLifecycleModes, string(m)) {
			errs = append(errs, field.NotSupported(p.Child("volumeLifecycleModes"), string(m), supportedLifecycleModes))
		}
	}
	if n := s.NodeAllocatableUpdatePeriodSeconds; n != nil && *n < 10 {
		errs = append(errs, field.Invalid(p.Child("nodeAllocatableUpdatePeriodSeconds"), *n, "must be greater than or equal to 10 seconds"))
	}
	if v := s.ServiceAccountTokenInSecrets; v != nil && len(s.TokenRequests) == 0 {
		errs = append(errs, field.Invalid(p.Child("serviceAccountTokenInSecrets"), *v,
			"serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
	}
	return errs
}

func validateTokenRequests(reqs []TokenRequest, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, r := range reqs {
		ip := p.Index(i)
		if seen[r.Audience] {
			errs = append(errs, field.Duplicate(ip.Child("audience"), r.Audience))
			continue
		}
		seen[r.Audience] = true
		if r.ExpirationSeconds == nil {
			continue
		}
		switch e := *r.ExpirationSeconds; {
		case e < minTokenExpirationSeconds:
			errs = append(errs, field.Invalid(ip.Child("expirationSeconds"), e, "may not specify a duration less than 10 minutes"))
		case e > maxTokenExpirationSeconds:
			errs = append(errs, field.Invalid(ip.Child("expirationSeconds"), e, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	return errs
}

// ValidateCSIStorageCapacity checks a CSIStorageCapacity as
// kube-apiserver does: a namespaced DNS-subdomain name, a valid node
// topology selector, a DNS-subdomain class name and a capacity that is
// not negative.
func ValidateCSIStorageCapacity(c *CSIStorageCapacity) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validation.ValidateLabelSelector(c.NodeTopology, field.NewPath("nodeTopology"))...)
	for _, msg := range validation.NameIsDNSSubdomain(c.StorageClassName, false) {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	if c.Capacity != nil && c.Capacity.Sign() < 0 {
		errs = append(errs, field.Invalid(field.NewPath("capacity"), c.Capacity.String(), validation.IsNegativeErrorMsg))
	}
	return errs
}

// ValidateCSIStorageCapacityUpdate checks c as a replacement for old:
// besides ValidateCSIStorageCapacity, the node topology and class name
// (the inputs of the driver's GetCapacity) are immutable.
func ValidateCSIStorageCapacityUpdate(c, old *CSIStorageCapacity) field.ErrorList {
	errs := ValidateCSIStorageCapacity(c)
	errs = append(errs, validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	if !validation.SemanticEqual(c.NodeTopology, old.NodeTopology) {
		errs = append(errs, field.Invalid(field.NewPath("nodeTopology"), c.NodeTopology, validation.FieldImmutableErrorMsg))
	}
	if c.StorageClassName != old.StorageClassName {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, validation.FieldImmutableErrorMsg))
	}
	return errs
}

// ValidateVolumeAttributesClass checks a VolumeAttributesClass as
// kube-apiserver does: a DNS-subdomain name, a driver name that is a
// qualified name, and at least one parameter, with non-empty keys, within
// the size limits.
func ValidateVolumeAttributesClass(c *VolumeAttributesClass) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateProvisioner(c.DriverName, field.NewPath("driverName"))...)
	return append(errs, validateParameters(c.Parameters, false, field.NewPath("parameters"))...)
}

// ValidateVolumeAttributesClassUpdate checks c as a replacement for old:
// besides ValidateVolumeAttributesClass, the driver name and parameters
// cannot change.
func ValidateVolumeAttributesClassUpdate(c, old *VolumeAttributesClass) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if c.DriverName != old.DriverName {
		errs = append(errs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
	}
	if !reflect.DeepEqual(c.Parameters, old.Parameters) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	return append(errs, ValidateVolumeAttributesClass(c)...)
}
