package apps

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateDaemonSet checks a new, defaulted DaemonSet.
func ValidateDaemonSet(d *DaemonSet) field.ErrorList {
	errs := validation.ValidateObjectMeta(&d.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidateDaemonSetSpec(&d.Spec, field.NewPath("spec"))...)
}

// ValidateDaemonSetUpdate checks d as a replacement for old; the selector
// is immutable.
func ValidateDaemonSetUpdate(d, old *DaemonSet) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateDaemonSetSpec(&d.Spec, field.NewPath("spec"))...)
	return append(errs, validation.ValidateImmutableField(d.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateDaemonSetSpec checks spec at p: a non-empty selector matching the
// template's labels, a valid template, and a consistent update strategy.
func ValidateDaemonSetSpec(spec *DaemonSetSpec, p *field.Path) field.ErrorList {
	errs := validateSelector(spec.Selector, "daemonset", p.Child("selector"))
	errs = append(errs, validateTemplate(&spec.Template, spec.Selector, "DaemonSet", p.Child("template"))...)
	errs = append(errs, validation.ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, ValidateDaemonSetUpdateStrategy(&spec.UpdateStrategy, p.Child("updateStrategy"))...)
	return append(errs, validateNonnegative32(spec.RevisionHistoryLimit, p.Child("revisionHistoryLimit"))...)
}

// ValidateDaemonSetUpdateStrategy checks s at p: OnDelete, or RollingUpdate
// with exactly one of maxUnavailable and maxSurge non-zero, neither above
// 100%.
func ValidateDaemonSetUpdateStrategy(s *DaemonSetUpdateStrategy, p *field.Path) field.ErrorList {
	switch s.Type {
	case OnDeleteDaemonSetStrategyType:
		return nil
	case RollingUpdateDaemonSetStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "")}
		}
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), string(s.Type),
			[]string{string(RollingUpdateDaemonSetStrategyType), string(OnDeleteDaemonSetStrategyType)})}
	}
	ru, rp := s.RollingUpdate, p.Child("rollingUpdate")
	errs := validateOptionalIntOrPercent(ru.MaxUnavailable, rp.Child("maxUnavailable"))
	errs = append(errs, validateOptionalIntOrPercent(ru.MaxSurge, rp.Child("maxSurge"))...)
	errs = append(errs, isNotMoreThan100Percent(ru.MaxUnavailable, rp.Child("maxUnavailable"))...)
	errs = append(errs, isNotMoreThan100Percent(ru.MaxSurge, rp.Child("maxSurge"))...)
	hasUnavailable, hasSurge := intOrPercentValue(ru.MaxUnavailable) != 0, intOrPercentValue(ru.MaxSurge) != 0
	switch {
	case hasUnavailable && hasSurge:
		errs = append(errs, field.Invalid(rp.Child("maxSurge"), ru.MaxSurge.String(), "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		errs = append(errs, field.Required(rp.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
	}
	return errs
}

// ValidateDaemonSetStatus checks a status written through the status
// subresource: every count non-negative.
func ValidateDaemonSetStatus(st *DaemonSetStatus, p *field.Path) field.ErrorList {
	errs := validation.ValidateNonnegativeField(st.ObservedGeneration, p.Child("observedGeneration"))
	for _, c := range []struct {
		name string
		v    int32
	}{
		{"currentNumberScheduled", st.CurrentNumberScheduled}, {"numberMisscheduled", st.NumberMisscheduled},
		{"desiredNumberScheduled", st.DesiredNumberScheduled}, {"numberReady", st.NumberReady},
		{"updatedNumberScheduled", st.UpdatedNumberScheduled}, {"numberAvailable", st.NumberAvailable},
		{"numberUnavailable", st.NumberUnavailable},
	} {
		errs = append(errs, validation.ValidateNonnegativeField(int64(c.v), p.Child(c.name))...)
	}
	return append(errs, validateNonnegative32(st.CollisionCount, p.Child("collisionCount"))...)
}
