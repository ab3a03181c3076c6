package coordination

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateLease checks a new Lease: a DNS-subdomain name in a namespace, a
// positive leaseDurationSeconds and a non-negative leaseTransitions when set.
func ValidateLease(l *Lease) field.ErrorList {
	errs := validation.ValidateObjectMeta(&l.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidateLeaseSpec(&l.Spec, field.NewPath("spec"))...)
}

// ValidateLeaseUpdate checks l as a replacement for old.
func ValidateLeaseUpdate(l, old *Lease) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&l.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateLeaseSpec(&l.Spec, field.NewPath("spec"))...)
}

// ValidateLeaseSpec checks spec at p.
func ValidateLeaseSpec(spec *LeaseSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(p.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if n := spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(p.Child("leaseTransitions"), *n, "must be greater than or equal to 0"))
	}
	return errs
}
