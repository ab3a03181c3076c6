package core

import (
	"encoding/json"

	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

var accessModes = []PersistentVolumeAccessMode{ReadOnlyMany, ReadWriteMany, ReadWriteOnce, ReadWriteOncePod}

func validateAccessModes(modes []PersistentVolumeAccessMode, p *field.Path, required string) field.ErrorList {
	if len(modes) == 0 {
		return field.ErrorList{field.Required(p, required)}
	}
	var errs field.ErrorList
	for _, m := range modes {
		errs = append(errs, validateEnum(m, true, p, accessModes...)...)
		if m == ReadWriteOncePod && len(modes) > 1 {
			errs = append(errs, field.Forbidden(p, "may not use ReadWriteOncePod with other access modes"))
		}
	}
	return errs
}

// ValidatePersistentVolume checks a PersistentVolume: access modes,
// capacity holding exactly storage, exactly one volume source (a local
// volume needing node affinity), reclaim policy, volume mode and class.
func ValidatePersistentVolume(pv *PersistentVolume) field.ErrorList {
	errs := validation.ValidateObjectMeta(&pv.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp, spec := field.NewPath("spec"), &pv.Spec
	errs = append(errs, validateAccessModes(spec.AccessModes, sp.Child("accessModes"), "")...)
	cp := sp.Child("capacity")
	if len(spec.Capacity) == 0 {
		errs = append(errs, field.Required(cp, ""))
	} else if _, ok := spec.Capacity[ResourceStorage]; !ok || len(spec.Capacity) > 1 {
		errs = append(errs, field.NotSupported(cp, resourceNames(spec.Capacity), []string{string(ResourceStorage)}))
	}
	for _, n := range sortedNames(spec.Capacity) {
		errs = append(errs, validateQuantity(n, spec.Capacity[n], cp.Key(string(n)))...)
	}
	errs = append(errs, validateEnum(spec.PersistentVolumeReclaimPolicy, false, sp.Child("persistentVolumeReclaimPolicy"),
		PersistentVolumeReclaimDelete, PersistentVolumeReclaimRecycle, PersistentVolumeReclaimRetain)...)
	if spec.StorageClassName != "" {
		errs = append(errs, validateDNS1123Subdomain(spec.StorageClassName, sp.Child("storageClassName"))...)
	}
	if spec.VolumeMode != nil {
		errs = append(errs, validateEnum(*spec.VolumeMode, true, sp.Child("volumeMode"),
			PersistentVolumeBlock, PersistentVolumeFilesystem)...)
	}
	if na := spec.NodeAffinity; na != nil {
		if na.Required == nil {
			errs = append(errs, field.Required(sp.Child("nodeAffinity", "required"), "must specify required node constraints"))
		} else {
			errs = append(errs, ValidateNodeSelector(na.Required, sp.Child("nodeAffinity", "required"))...)
		}
	}
	errs = append(errs, validatePVAttributesClass(spec, sp)...)
	return append(errs, validatePVSource(pv, sp)...)
}

// validatePVAttributesClass checks a volume's VolumeAttributesClass name
// as kube-apiserver does: when set, not empty, a DNS subdomain, and only
// on a CSI volume.
func validatePVAttributesClass(spec *PersistentVolumeSpec, sp *field.Path) field.ErrorList {
	name := spec.VolumeAttributesClassName
	if name == nil {
		return nil
	}
	var errs field.ErrorList
	if *name == "" {
		errs = append(errs, field.Required(sp.Child("volumeAttributesClassName"), "an empty string is disallowed"))
	} else {
		errs = append(errs, validateDNS1123Subdomain(*name, sp.Child("volumeAttributesClassName"))...)
	}
	if spec.CSI == nil {
		errs = append(errs, field.Required(sp.Child("csi"), "has to be specified when using volumeAttributesClassName"))
	}
	return errs
}

func resourceNames(rl ResourceList) string {
	names := sortedNames(rl)
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ",")
}

func validatePVSource(pv *PersistentVolume, sp *field.Path) field.ErrorList {
	var errs field.ErrorList
	var set []string
	src := &pv.Spec.PersistentVolumeSource
	if src.HostPath != nil {
		set = append(set, "hostPath")
		errs = append(errs, validateHostPath(src.HostPath, sp.Child("hostPath"))...)
	}
	if src.NFS != nil {
		set = append(set, "nfs")
		errs = append(errs, validateNFS(src.NFS, sp.Child("nfs"))...)
	}
	if src.Local != nil {
		set = append(set, "local")
		lp := sp.Child("local", "path")
		if src.Local.Path == "" {
			errs = append(errs, field.Required(lp, ""))
		} else {
			errs = append(errs, validateNoBacksteps(src.Local.Path, lp)...)
		}
		if pv.Spec.NodeAffinity == nil {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations"), "Local volume requires node affinity"))
		}
	}
	if src.CSI != nil {
		set = append(set, "csi")
		if src.CSI.Driver == "" {
			errs = append(errs, field.Required(sp.Child("csi", "driver"), ""))
		}
		if src.CSI.VolumeHandle == "" {
			errs = append(errs, field.Required(sp.Child("csi", "volumeHandle"), ""))
		}
	}
	if len(set) == 0 {
		return append(errs, field.Required(sp, "must specify a volume type"))
	}
	for _, extra := range set[1:] {
		errs = append(errs, field.Forbidden(sp.Child(extra), "may not specify more than 1 volume type"))
	}
	return errs
}

func validateNoBacksteps(s string, p *field.Path) field.ErrorList {
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			return field.ErrorList{field.Invalid(p, s, "must not contain '..'")}
		}
	}
	return nil
}

// ValidatePersistentVolumeUpdate checks pv as a replacement for old: the
// volume source and volume mode are immutable, and node affinity may only
// be set if it was not.
func ValidatePersistentVolumeUpdate(pv, old *PersistentVolume) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&pv.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePersistentVolume(pv)...)
	if !jsonEqual(pv.Spec.PersistentVolumeSource, old.Spec.PersistentVolumeSource) {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "persistentvolumesource"),
			"spec.persistentvolumesource is immutable after creation"))
	}
	if !jsonEqual(pv.Spec.VolumeMode, old.Spec.VolumeMode) {
		errs = append(errs, field.Invalid(field.NewPath("volumeMode"), modeString(pv.Spec.VolumeMode), fieldImmutableMsg))
	}
	if old.Spec.NodeAffinity != nil && !jsonEqual(pv.Spec.NodeAffinity, old.Spec.NodeAffinity) {
		errs = append(errs, field.Forbidden(field.NewPath("nodeAffinity"), fieldImmutableMsg))
	}
	if old.Spec.VolumeAttributesClassName != nil && pv.Spec.VolumeAttributesClassName == nil {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
	}
	return errs
}

func modeString(m *PersistentVolumeMode) string {
	if m == nil {
		return ""
	}
	return string(*m)
}

// ValidatePersistentVolumeClaim checks a claim: at least one access mode,
// a positive storage request, a valid selector, class and volume mode.
func ValidatePersistentVolumeClaim(pvc *PersistentVolumeClaim) field.ErrorList {
	errs := validation.ValidateObjectMeta(&pvc.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp, spec := field.NewPath("spec"), &pvc.Spec
	errs = append(errs, validateAccessModes(spec.AccessModes, sp.Child("accessModes"), "at least 1 access mode is required")...)
	if spec.Selector != nil {
		errs = append(errs, validation.ValidateLabelSelector(spec.Selector, sp.Child("selector"))...)
	}
	rp := sp.Child("resources").Key(string(ResourceStorage))
	if q, ok := spec.Resources.Requests[ResourceStorage]; !ok {
		errs = append(errs, field.Required(rp, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, field.Invalid(rp, q.String(), isNotPositiveErrorMsg))
	}
	if spec.StorageClassName != nil && *spec.StorageClassName != "" {
		errs = append(errs, validateDNS1123Subdomain(*spec.StorageClassName, sp.Child("storageClassName"))...)
	}
	if spec.VolumeMode != nil {
		errs = append(errs, validateEnum(*spec.VolumeMode, true, sp.Child("volumeMode"),
			PersistentVolumeBlock, PersistentVolumeFilesystem)...)
	}
	if n := spec.VolumeAttributesClassName; n != nil && *n != "" {
		errs = append(errs, validateDNS1123Subdomain(*n, sp.Child("volumeAttributesClassName"))...)
	}
	return errs
}

// ValidatePersistentVolumeClaimUpdate checks pvc as a replacement for old:
// the spec is immutable except volumeName (set once), the storage request
// of a bound claim (never shrinking) and volumeAttributesClassName.
func ValidatePersistentVolumeClaimUpdate(pvc, old *PersistentVolumeClaim) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePersistentVolumeClaim(pvc)...)
	newSpec, oldSpec := pvc.Spec, old.Spec
	if oldSpec.VolumeName == "" {
		oldSpec.VolumeName = newSpec.VolumeName
	}
	newSpec.VolumeAttributesClassName = oldSpec.VolumeAttributesClassName
	// A claim created without a class may get one while it is unbound (the
	// default class, assigned retroactively), as Kubernetes allows.
	if _, beta := old.Annotations["volume.beta.kubernetes.io/storage-class"]; !beta && oldSpec.StorageClassName == nil &&
		newSpec.StorageClassName != nil && old.Spec.VolumeName == "" {
		oldSpec.StorageClassName = newSpec.StorageClassName
	}
	if pvc.Status.Phase == ClaimBound {
		newSpec.Resources.Requests = newSpec.Resources.Requests.DeepCopy()
		if q, ok := oldSpec.Resources.Requests[ResourceStorage]; ok && newSpec.Resources.Requests != nil {
			newSpec.Resources.Requests[ResourceStorage] = q
		}
	}
	if !jsonEqual(newSpec, oldSpec) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"),
			"spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"))
	}
	// Once a VolumeAttributesClass is applied, the claim keeps naming one.
	if old.Status.CurrentVolumeAttributesClassName != nil && !jsonEqual(pvc.Spec.VolumeAttributesClassName, old.Spec.VolumeAttributesClassName) {
		vp := field.NewPath("spec", "volumeAttributesClassName")
		switch n := pvc.Spec.VolumeAttributesClassName; {
		case n == nil:
			errs = append(errs, field.Forbidden(vp, "update to nil is forbidden when status.currentVolumeAttributesClassName is not nil"))
		case *n == "":
			errs = append(errs, field.Forbidden(vp, "update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil"))
		}
	}
	newSize, oldSize := pvc.Spec.Resources.Requests.Storage(), old.Spec.Resources.Requests.Storage()
	if newSize.Cmp(*oldSize) < 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"),
			"field can not be less than previous value"))
	}
	return errs
}

// jsonEqual compares two values through their JSON form (semantic
// equality for quantities, nil and empty the same where JSON omits both).
func jsonEqual(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
