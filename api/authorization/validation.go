package authorization

import (
	"reflect"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// ValidateSubjectAccessReviewSpec checks spec at p: exactly one of
// resourceAttributes and nonResourceAttributes, and a user or a group.
func ValidateSubjectAccessReviewSpec(spec *SubjectAccessReviewSpec, p *field.Path) field.ErrorList {
	errs := validateAttributes(spec.ResourceAttributes, spec.NonResourceAttributes, p)
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(p.Child("user"), spec.User, "at least one of user or group must be specified"))
	}
	return errs
}

func validateAttributes(ra *ResourceAttributes, nra *NonResourceAttributes, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ra != nil && nra != nil {
		errs = append(errs, field.Invalid(p.Child("nonResourceAttributes"), nra, "cannot be specified in combination with resourceAttributes"))
	}
	if ra == nil && nra == nil {
		errs = append(errs, field.Invalid(p.Child("resourceAttributes"), nra, "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	return errs
}

// metadataIsEmpty reports whether m carries nothing but managed fields and,
// when allowNamespace, a namespace.
func metadataIsEmpty(m meta.ObjectMeta, allowNamespace bool) bool {
	m.ManagedFields = nil
	if allowNamespace {
		m.Namespace = ""
	}
	return reflect.DeepEqual(m, meta.ObjectMeta{})
}

// ValidateSubjectAccessReview checks a SubjectAccessReview; its metadata
// must be empty.
func ValidateSubjectAccessReview(r *SubjectAccessReview) field.ErrorList {
	errs := ValidateSubjectAccessReviewSpec(&r.Spec, field.NewPath("spec"))
	if !metadataIsEmpty(r.ObjectMeta, false) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty"))
	}
	return errs
}

// ValidateSelfSubjectAccessReview checks a SelfSubjectAccessReview.
func ValidateSelfSubjectAccessReview(r *SelfSubjectAccessReview) field.ErrorList {
	errs := validateAttributes(r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes, field.NewPath("spec"))
	if !metadataIsEmpty(r.ObjectMeta, false) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty"))
	}
	return errs
}

// ValidateLocalSubjectAccessReview checks a LocalSubjectAccessReview: its
// resource attributes must name its own namespace, and it may not ask about
// non-resource paths.
func ValidateLocalSubjectAccessReview(r *LocalSubjectAccessReview) field.ErrorList {
	errs := ValidateSubjectAccessReviewSpec(&r.Spec, field.NewPath("spec"))
	if !metadataIsEmpty(r.ObjectMeta, true) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty except for namespace"))
	}
	if ra := r.Spec.ResourceAttributes; ra != nil && ra.Namespace != r.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec", "resourceAttributes", "namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	if r.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "nonResourceAttributes"), r.Spec.NonResourceAttributes, "disallowed on this kind of request"))
	}
	return errs
}

// ValidateSelfSubjectRulesReview checks a SelfSubjectRulesReview; the
// namespace may be empty (cluster-wide rules only).
func ValidateSelfSubjectRulesReview(r *SelfSubjectRulesReview) field.ErrorList {
	if !metadataIsEmpty(r.ObjectMeta, false) {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty")}
	}
	return nil
}
