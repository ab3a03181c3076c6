package storage

import (
	"reflect"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// Limits on a class's parameters, as kube-apiserver's.
const (
	maxParameterCount = 512
	maxParameterSize  = 256 * (1 << 10)
)

var (
	supportedReclaimPolicies = []string{string(core.PersistentVolumeReclaimDelete), string(core.PersistentVolumeReclaimRetain)}
	supportedBindingModes    = []string{string(VolumeBindingImmediate), string(VolumeBindingWaitForFirstConsumer)}
)

// ValidateStorageClass checks a (defaulted) StorageClass as
// kube-apiserver does: a DNS-subdomain name, a provisioner that is a
// qualified name, non-empty parameter keys within the size limits, a
// reclaim policy of Delete or Retain, a binding mode of Immediate or
// WaitForFirstConsumer, and well-formed allowed topologies.
func ValidateStorageClass(sc *StorageClass) field.ErrorList {
	errs := validation.ValidateObjectMeta(&sc.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateProvisioner(sc.Provisioner, field.NewPath("provisioner"))...)
	errs = append(errs, validateParameters(sc.Parameters, true, field.NewPath("parameters"))...)
	if p := sc.ReclaimPolicy; p != nil && *p != "" && !slices.Contains(supportedReclaimPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), string(*p), supportedReclaimPolicies))
	}
	switch m := sc.VolumeBindingMode; {
	case m == nil:
		errs = append(errs, field.Required(field.NewPath("volumeBindingMode"), ""))
	case !slices.Contains(supportedBindingModes, string(*m)):
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), string(*m), supportedBindingModes))
	}
	return append(errs, validateTopologies(sc.AllowedTopologies, field.NewPath("allowedTopologies"))...)
}

// ValidateStorageClassUpdate checks sc as a replacement for old: besides
// ValidateStorageClass, the provisioner, parameters, reclaim policy and
// binding mode cannot change.
func ValidateStorageClassUpdate(sc, old *StorageClass) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&sc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateStorageClass(sc)...)
	if !reflect.DeepEqual(sc.Parameters, old.Parameters) && (len(sc.Parameters) > 0 || len(old.Parameters) > 0) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	if sc.Provisioner != old.Provisioner {
		errs = append(errs, field.Forbidden(field.NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	if ReclaimPolicyOf(sc) != ReclaimPolicyOf(old) {
		errs = append(errs, field.Forbidden(field.NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
	}
	if BindingMode(sc) != BindingMode(old) {
		errs = append(errs, validation.ValidateImmutableField(BindingMode(sc), BindingMode(old), field.NewPath("volumeBindingMode"))...)
	}
	return errs
}

func validateProvisioner(p string, path *field.Path) field.ErrorList {
	if p == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(strings.ToLower(p)) {
		errs = append(errs, field.Invalid(path, p, msg))
	}
	return errs
}

// validateParameters checks a class's parameters: at most 512, non-empty
// keys, at most 256 KiB of keys and values, and (unless allowEmpty) at
// least one.
func validateParameters(params map[string]string, allowEmpty bool, path *field.Path) field.ErrorList {
	if len(params) > maxParameterCount {
		return field.ErrorList{field.TooLong(path, "Provisioner Parameters exceeded max allowed", maxParameterCount)}
	}
	var errs field.ErrorList
	size := 0
	for k, v := range params {
		if k == "" {
			errs = append(errs, field.Invalid(path, k, "field can not be empty."))
		}
		size += len(k) + len(v)
	}
	if size > maxParameterSize {
		errs = append(errs, field.TooLong(path, "", maxParameterSize))
	}
	if !allowEmpty && len(params) == 0 {
		errs = append(errs, field.Required(path, "must contain at least one key/value pair"))
	}
	return errs
}

// validateTopologies checks each term as Kubernetes'
// ValidateTopologySelectorTerm does: at least one requirement, each with
// a valid label key and at least one valid, distinct value.
func validateTopologies(terms []core.TopologySelectorTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, term := range terms {
		tp := path.Index(i)
		if len(term.MatchLabelExpressions) == 0 {
			errs = append(errs, field.Required(tp, "must have at least one label match expression"))
		}
		for j, req := range term.MatchLabelExpressions {
			rp := tp.Child("matchLabelExpressions").Index(j)
			for _, msg := range validation.IsQualifiedName(req.Key) {
				errs = append(errs, field.Invalid(rp.Child("key"), req.Key, msg))
			}
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), "must specify as least one value"))
			}
			seen := map[string]bool{}
			for k, v := range req.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					errs = append(errs, field.Invalid(rp.Child("values").Index(k), v, msg))
				}
				if seen[v] {
					errs = append(errs, field.Duplicate(rp.Child("values").Index(k), v))
				}
				seen[v] = true
			}
		}
	}
	return errs
}
