package validation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// ValidateObjectMeta validates the metadata of an object being created
// (after any generateName has been applied):
//
//   - name is required (reported as "name or generateName is required") and
//     must satisfy nameFn; a generateName must satisfy nameFn as a prefix;
//   - namespace is required and a DNS-1123 label when namespaced is true, and
//     forbidden otherwise;
//   - generation is not negative;
//   - labels, annotations, ownerReferences and finalizers are well formed
//     (see ValidateLabels, ValidateAnnotations, ValidateOwnerReferences and
//     ValidateFinalizers).
//
// p is the path of the metadata ("metadata"); a nil nameFn means
// NameIsDNSSubdomain.
func ValidateObjectMeta(m *meta.ObjectMeta, namespaced bool, nameFn NameFunc, p *field.Path) field.ErrorList {
	if nameFn == nil {
		nameFn = NameIsDNSSubdomain
	}
	var errs field.ErrorList
	if m.GenerateName != "" {
		for _, msg := range nameFn(m.GenerateName, true) {
			errs = append(errs, field.Invalid(p.Child("generateName"), m.GenerateName, msg))
		}
	}
	if m.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "name or generateName is required"))
	} else {
		for _, msg := range nameFn(m.Name, false) {
			errs = append(errs, field.Invalid(p.Child("name"), m.Name, msg))
		}
	}
	errs = append(errs, validateNamespace(m.Namespace, namespaced, p.Child("namespace"))...)
	errs = append(errs, ValidateNonnegativeField(m.Generation, p.Child("generation"))...)
	return append(errs, validateMetaCommon(m, p)...)
}

func validateNamespace(ns string, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case namespaced && ns == "":
		errs = append(errs, field.Required(p, ""))
	case namespaced:
		for _, msg := range NameIsDNSLabel(ns, false) {
			errs = append(errs, field.Invalid(p, ns, msg))
		}
	case ns != "":
		errs = append(errs, field.Forbidden(p, "not allowed on this type"))
	}
	return errs
}

// validateMetaCommon holds the checks shared by create and update.
func validateMetaCommon(m *meta.ObjectMeta, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, ValidateLabels(m.Labels, p.Child("labels"))...)
	errs = append(errs, ValidateAnnotations(m.Annotations, p.Child("annotations"))...)
	errs = append(errs, ValidateOwnerReferences(m.OwnerReferences, p.Child("ownerReferences"))...)
	return append(errs, ValidateFinalizers(m.Finalizers, p.Child("finalizers"))...)
}

// ValidateObjectMetaUpdate validates the metadata of an object being
// updated from oldM to newM: name, namespace, uid, creationTimestamp and
// generateName may not change; deletionTimestamp may be set but, once set,
// neither changed nor cleared; no finalizer may be added once deletion has
// started; and the new labels, annotations, ownerReferences and finalizers
// must be well formed. p is the path of the metadata ("metadata").
func ValidateObjectMetaUpdate(newM, oldM *meta.ObjectMeta, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldM.DeletionTimestamp != nil {
		errs = append(errs, validateNoNewFinalizers(newM.Finalizers, oldM.Finalizers, p.Child("finalizers"))...)
	}
	errs = append(errs, ValidateImmutableField(newM.Name, oldM.Name, p.Child("name"))...)
	errs = append(errs, ValidateImmutableField(newM.Namespace, oldM.Namespace, p.Child("namespace"))...)
	errs = append(errs, ValidateImmutableField(string(newM.UID), string(oldM.UID), p.Child("uid"))...)
	errs = append(errs, ValidateImmutableField(newM.CreationTimestamp, oldM.CreationTimestamp, p.Child("creationTimestamp"))...)
	errs = append(errs, ValidateImmutableField(newM.GenerateName, oldM.GenerateName, p.Child("generateName"))...)
	if oldM.DeletionTimestamp != nil {
		errs = append(errs, ValidateImmutableField(newM.DeletionTimestamp, oldM.DeletionTimestamp, p.Child("deletionTimestamp"))...)
	}
	errs = append(errs, ValidateNonnegativeField(newM.Generation, p.Child("generation"))...)
	return append(errs, validateMetaCommon(newM, p)...)
}

func validateNoNewFinalizers(newF, oldF []string, p *field.Path) field.ErrorList {
	var extra []string
	for _, f := range newF {
		if !slices.Contains(oldF, f) && !slices.Contains(extra, f) {
			extra = append(extra, f)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	return field.ErrorList{field.Forbidden(p,
		fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra))}
}

// ValidateLabels checks that every key is a qualified name and every value
// a valid label value. Errors are reported at p itself, in key order.
func ValidateLabels(l map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(l) {
		errs = append(errs, validateLabelKey(k, p)...)
		for _, msg := range IsValidLabelValue(l[k]) {
			errs = append(errs, field.Invalid(p, l[k], msg))
		}
	}
	return errs
}

func validateLabelKey(k string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range IsQualifiedName(k) {
		errs = append(errs, field.Invalid(p, k, msg))
	}
	return errs
}

// ValidateAnnotations checks that every key is a qualified name (in any
// case) and that keys and values together are at most
// TotalAnnotationSizeLimitB bytes. Errors are reported at p, in key order.
func ValidateAnnotations(a map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for _, k := range sortedKeys(a) {
		for _, msg := range IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		total += len(k) + len(a[k])
	}
	if total > TotalAnnotationSizeLimitB {
		errs = append(errs, field.TooLong(p, "", TotalAnnotationSizeLimitB))
	}
	return errs
}

// ValidateOwnerReferences checks that each reference names apiVersion,
// kind, name and uid, that no Event is an owner, and that at most one
// reference is the controller.
func ValidateOwnerReferences(refs []meta.OwnerReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	controller := ""
	for _, ref := range refs {
		errs = append(errs, validateOwnerReference(ref, p)...)
		if ref.Controller == nil || !*ref.Controller {
			continue
		}
		this := ref.Kind + "/" + ref.Name
		if controller != "" {
			errs = append(errs, field.Invalid(p, refs, fmt.Sprintf(
				"Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", controller, this)))
		} else {
			controller = this
		}
	}
	return errs
}

func validateOwnerReference(ref meta.OwnerReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	gv := meta.ParseGroupVersion(ref.APIVersion)
	if gv.Version == "" || strings.Contains(gv.Version, "/") {
		errs = append(errs, field.Invalid(p.Child("apiVersion"), ref.APIVersion, "version must not be empty"))
	}
	if ref.Kind == "" {
		errs = append(errs, field.Invalid(p.Child("kind"), ref.Kind, "must not be empty"))
	}
	if ref.Name == "" {
		errs = append(errs, field.Invalid(p.Child("name"), ref.Name, "must not be empty"))
	}
	if ref.UID == "" {
		errs = append(errs, field.Invalid(p.Child("uid"), string(ref.UID), "must not be empty"))
	}
	if gvk := gv.WithKind(ref.Kind); gvk == (meta.GroupVersionKind{Version: "v1", Kind: "Event"}) {
		errs = append(errs, field.Invalid(p, ref, fmt.Sprintf("/%s is disallowed from being an owner", gvk)))
	}
	return errs
}

// ValidateFinalizers checks that each finalizer is a qualified name and
// that "orphan" and "foregroundDeletion" are not both present.
func ValidateFinalizers(finalizers []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range finalizers {
		for _, msg := range IsQualifiedName(f) {
			errs = append(errs, field.Invalid(p, f, msg))
		}
	}
	if slices.Contains(finalizers, meta.FinalizerOrphanDependents) && slices.Contains(finalizers, meta.FinalizerDeleteDependents) {
		errs = append(errs, field.Invalid(p, finalizers, fmt.Sprintf("finalizer %s and %s cannot be both set",
			meta.FinalizerOrphanDependents, meta.FinalizerDeleteDependents)))
	}
	return errs
}

// ValidateImmutableField reports "field is immutable" at p when newVal and
// oldVal differ by SemanticEqual.
func ValidateImmutableField(newVal, oldVal any, p *field.Path) field.ErrorList {
	if SemanticEqual(oldVal, newVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, newVal, FieldImmutableErrorMsg)}
}

// ValidateNonnegativeField reports v at p when it is negative.
func ValidateNonnegativeField(v int64, p *field.Path) field.ErrorList {
	if v >= 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, v, IsNegativeErrorMsg)}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
