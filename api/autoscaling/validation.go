package autoscaling

import "github.com/orkit/orkit/api/field"

// ValidateScale checks a Scale written to a scale subresource: it must name
// its object, and spec.replicas must not be negative.
func ValidateScale(s *Scale) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	if s.Spec.Replicas < 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "replicas"), s.Spec.Replicas, "must be greater than or equal to 0"))
	}
	return errs
}
