package apps

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateDeployment checks a new, defaulted Deployment.
func ValidateDeployment(d *Deployment) field.ErrorList {
	errs := validation.ValidateObjectMeta(&d.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidateDeploymentSpec(&d.Spec, field.NewPath("spec"))...)
}

// ValidateDeploymentUpdate checks d as a replacement for old; the selector
// is immutable.
func ValidateDeploymentUpdate(d, old *Deployment) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateDeploymentSpec(&d.Spec, field.NewPath("spec"))...)
	return append(errs, validation.ValidateImmutableField(d.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateDeploymentSpec checks spec at p: replicas ≥ 0, a non-empty
// selector matching the template's labels, a valid template, a consistent
// strategy and non-negative durations, with progressDeadlineSeconds above
// minReadySeconds.
func ValidateDeploymentSpec(spec *DeploymentSpec, p *field.Path) field.ErrorList {
	errs := validateNonnegative32(spec.Replicas, p.Child("replicas"))
	errs = append(errs, validateSelector(spec.Selector, "deployment", p.Child("selector"))...)
	errs = append(errs, validateTemplate(&spec.Template, spec.Selector, "Deployment", p.Child("template"))...)
	errs = append(errs, ValidateDeploymentStrategy(&spec.Strategy, p.Child("strategy"))...)
	errs = append(errs, validation.ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateNonnegative32(spec.RevisionHistoryLimit, p.Child("revisionHistoryLimit"))...)
	if pd := spec.ProgressDeadlineSeconds; pd != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(*pd), p.Child("progressDeadlineSeconds"))...)
		if *pd <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(p.Child("progressDeadlineSeconds"), *pd, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// ValidateDeploymentStrategy checks s at p: Recreate has no rollingUpdate;
// RollingUpdate has one, with valid bounds that are not both 0 and a
// maxUnavailable of at most 100%.
func ValidateDeploymentStrategy(s *DeploymentStrategy, p *field.Path) field.ErrorList {
	switch s.Type {
	case RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(p.Child("rollingUpdate"),
				"may not be specified when strategy `type` is '"+string(RecreateDeploymentStrategyType)+"'")}
		}
		return nil
	case RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdateDeployment(s.RollingUpdate, p.Child("rollingUpdate"))
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), string(s.Type),
			[]string{string(RecreateDeploymentStrategyType), string(RollingUpdateDeploymentStrategyType)})}
	}
}

func validateRollingUpdateDeployment(ru *RollingUpdateDeployment, p *field.Path) field.ErrorList {
	errs := validateOptionalIntOrPercent(ru.MaxUnavailable, p.Child("maxUnavailable"))
	errs = append(errs, validateOptionalIntOrPercent(ru.MaxSurge, p.Child("maxSurge"))...)
	if intOrPercentValue(ru.MaxUnavailable) == 0 && intOrPercentValue(ru.MaxSurge) == 0 {
		var bad any
		if ru.MaxUnavailable != nil {
			bad = ru.MaxUnavailable.String()
		}
		errs = append(errs, field.Invalid(p.Child("maxUnavailable"), bad, "may not be 0 when `maxSurge` is 0"))
	}
	return append(errs, isNotMoreThan100Percent(ru.MaxUnavailable, p.Child("maxUnavailable"))...)
}

// ValidateDeploymentStatus checks a status written through the status
// subresource: counts non-negative and consistent with status.replicas.
func ValidateDeploymentStatus(st *DeploymentStatus, p *field.Path) field.ErrorList {
	errs := validation.ValidateNonnegativeField(st.ObservedGeneration, p.Child("observedGeneration"))
	for _, c := range []struct {
		name string
		v    int32
	}{
		{"replicas", st.Replicas}, {"updatedReplicas", st.UpdatedReplicas}, {"readyReplicas", st.ReadyReplicas},
		{"availableReplicas", st.AvailableReplicas}, {"unavailableReplicas", st.UnavailableReplicas},
	} {
		errs = append(errs, validation.ValidateNonnegativeField(int64(c.v), p.Child(c.name))...)
	}
	errs = append(errs, validateNonnegative32(st.CollisionCount, p.Child("collisionCount"))...)
	errs = statusNotAbove(errs, st.UpdatedReplicas, st.Replicas, p.Child("updatedReplicas"), "status.replicas")
	errs = statusNotAbove(errs, st.ReadyReplicas, st.Replicas, p.Child("readyReplicas"), "status.replicas")
	errs = statusNotAbove(errs, st.AvailableReplicas, st.Replicas, p.Child("availableReplicas"), "status.replicas")
	return statusNotAbove(errs, st.AvailableReplicas, st.ReadyReplicas, p.Child("availableReplicas"), "readyReplicas")
}
