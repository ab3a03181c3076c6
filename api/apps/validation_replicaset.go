package apps

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateReplicaSet checks a new, defaulted ReplicaSet.
func ValidateReplicaSet(rs *ReplicaSet) field.ErrorList {
	errs := validation.ValidateObjectMeta(&rs.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidateReplicaSetSpec(&rs.Spec, field.NewPath("spec"))...)
}

// ValidateReplicaSetUpdate checks rs as a replacement for old; the selector
// is immutable.
func ValidateReplicaSetUpdate(rs, old *ReplicaSet) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&rs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateReplicaSetSpec(&rs.Spec, field.NewPath("spec"))...)
	return append(errs, validation.ValidateImmutableField(rs.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateReplicaSetSpec checks spec at p: replicas and minReadySeconds
// ≥ 0, a non-empty selector that matches the template's labels, and a valid
// template.
func ValidateReplicaSetSpec(spec *ReplicaSetSpec, p *field.Path) field.ErrorList {
	errs := validateNonnegative32(spec.Replicas, p.Child("replicas"))
	errs = append(errs, validation.ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	// Kubernetes' message names "deployment" for ReplicaSets too.
	errs = append(errs, validateSelector(spec.Selector, "deployment", p.Child("selector"))...)
	return append(errs, validateTemplate(&spec.Template, spec.Selector, "ReplicaSet", p.Child("template"))...)
}

// ValidateReplicaSetStatus checks a status written through the status
// subresource.
func ValidateReplicaSetStatus(st *ReplicaSetStatus, p *field.Path) field.ErrorList {
	errs := validation.ValidateNonnegativeField(int64(st.Replicas), p.Child("replicas"))
	errs = append(errs, validation.ValidateNonnegativeField(int64(st.FullyLabeledReplicas), p.Child("fullyLabeledReplicas"))...)
	errs = append(errs, validation.ValidateNonnegativeField(int64(st.ReadyReplicas), p.Child("readyReplicas"))...)
	errs = append(errs, validation.ValidateNonnegativeField(int64(st.AvailableReplicas), p.Child("availableReplicas"))...)
	errs = append(errs, validation.ValidateNonnegativeField(st.ObservedGeneration, p.Child("observedGeneration"))...)
	errs = statusNotAbove(errs, st.FullyLabeledReplicas, st.Replicas, p.Child("fullyLabeledReplicas"), "status.replicas")
	errs = statusNotAbove(errs, st.ReadyReplicas, st.Replicas, p.Child("readyReplicas"), "status.replicas")
	errs = statusNotAbove(errs, st.AvailableReplicas, st.Replicas, p.Child("availableReplicas"), "status.replicas")
	return statusNotAbove(errs, st.AvailableReplicas, st.ReadyReplicas, p.Child("availableReplicas"), "readyReplicas")
}
