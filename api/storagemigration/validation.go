package storagemigration

import (
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// ValidateStorageVersionMigration checks a new migration as
// kube-apiserver does: a DNS subdomain name, a resource that is a DNS-1035
// label, a group (when set) that is a DNS subdomain.
func ValidateStorageVersionMigration(svm *StorageVersionMigration) field.ErrorList {
	errs := validation.ValidateObjectMeta(&svm.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	rp := field.NewPath("spec", "resource")
	if r := svm.Spec.Resource.Resource; r == "" {
		errs = append(errs, field.Required(rp.Child("resource"), "resource is required to be set"))
	} else if msgs := validation.IsDNS1035Label(r); len(msgs) > 0 {
		errs = append(errs, field.Invalid(rp.Child("resource"), r, strings.Join(msgs, ",")))
	}
	if g := svm.Spec.Resource.Group; g != "" {
		if msgs := validation.IsDNS1123Subdomain(g); len(msgs) > 0 {
			errs = append(errs, field.Invalid(rp.Child("group"), g, strings.Join(msgs, ",")))
		}
	}
	return errs
}

// ValidateStorageVersionMigrationUpdate checks svm as a replacement for
// old, on the main resource and on its status: the spec is immutable,
// status.resourceVersion once set too; the conditions are well-formed
// meta/v1 conditions, Succeeded and Failed are never both True, and
// neither goes back once True. (The API server keeps the old status on a
// main-resource update and the old spec on a status update, so each check
// bites where kube-apiserver's does.)
func ValidateStorageVersionMigrationUpdate(svm, old *StorageVersionMigration) field.ErrorList {
	errs := ValidateStorageVersionMigration(svm)
	errs = append(errs, validation.ValidateObjectMetaUpdate(&svm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	errs = append(errs, validation.ValidateImmutableField(svm.Spec, old.Spec, field.NewPath("spec"))...)
	sp := field.NewPath("status")
	if old.Status.ResourceVersion != "" && old.Status.ResourceVersion != svm.Status.ResourceVersion {
		errs = append(errs, field.Invalid(sp.Child("resourceVersion"), svm.Status.ResourceVersion, "field is immutable"))
	}
	errs = append(errs, validation.ValidateConditions(svm.Status.Conditions, sp.Child("conditions"))...)
	cp := sp.Child("conditions")
	st, oldSt := &svm.Status, &old.Status
	if st.IsTrue(MigrationSucceeded) && st.IsTrue(MigrationFailed) {
		errs = append(errs, field.Invalid(cp, conditionTypes(st.Conditions), "Both success and failed conditions cannot be true at the same time"))
	}
	if oldSt.IsTrue(MigrationSucceeded) && !st.IsTrue(MigrationSucceeded) {
		errs = append(errs, field.Invalid(cp, conditionTypes(st.Conditions), "Success condition cannot be set to false once it is true"))
	}
	if oldSt.IsTrue(MigrationFailed) && !st.IsTrue(MigrationFailed) {
		errs = append(errs, field.Invalid(cp, conditionTypes(st.Conditions), "Failed condition cannot be set to false once it is true"))
	}
	return errs
}

// conditionTypes prints conditions as the bad value of an error.
func conditionTypes(cs []meta.Condition) string {
	types := make([]string, len(cs))
	for i, c := range cs {
		types[i] = c.Type + "=" + string(c.Status)
	}
	return "[" + strings.Join(types, " ") + "]"
}
