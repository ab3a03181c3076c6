package dra

import (
	"slices"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateDeviceTaintRule checks a new rule as kube-apiserver does: a
// DNS-subdomain name, a well-formed selector (driver, pool and device
// names) and a taint with a qualified-name key, a label value and an
// effect of None, NoSchedule or NoExecute.
func ValidateDeviceTaintRule(r *DeviceTaintRule) field.ErrorList {
	errs := validation.ValidateObjectMeta(&r.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateTaintRuleSpec(&r.Spec, nil, field.NewPath("spec"))...)
}

// ValidateDeviceTaintRuleUpdate checks r as a replacement for old,
// through the main resource or the status subresource: the spec as on
// create (an effect left unchanged is not checked again) and at most 8
// well-formed status conditions.
func ValidateDeviceTaintRuleUpdate(r, old *DeviceTaintRule) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateTaintRuleSpec(&r.Spec, &old.Spec, field.NewPath("spec"))...)
	return append(errs, validateConditions(r.Status.Conditions, maxRuleConditions, field.NewPath("status", "conditions"))...)
}

func validateTaintRuleSpec(spec, old *DeviceTaintRuleSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s := spec.DeviceSelector; s != nil {
		sp := p.Child("deviceSelector")
		if s.Driver != nil {
			errs = append(errs, validateDriverName(*s.Driver, sp.Child("driver"))...)
		}
		if s.Pool != nil {
			errs = append(errs, validatePoolName(*s.Pool, sp.Child("pool"))...)
		}
		if s.Device != nil {
			errs = append(errs, validateDNSLabel(*s.Device, sp.Child("device"))...)
		}
	}
	var oldTaint *DeviceTaint
	if old != nil {
		oldTaint = &old.Taint
	}
	return append(errs, validateTaint(spec.Taint, oldTaint, p.Child("taint"))...)
}

func validateTaint(t DeviceTaint, old *DeviceTaint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	} else {
		errs = append(errs, validateLabelName(t.Key, p.Child("key"))...)
	}
	if t.Value != "" {
		errs = append(errs, validateLabelValue(t.Value, p.Child("value"))...)
	}
	if old == nil || old.Effect != t.Effect {
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(p.Child("effect"), ""))
		case !slices.Contains(validEffects, string(t.Effect)):
			errs = append(errs, field.NotSupported(p.Child("effect"), string(t.Effect), validEffects))
		}
	}
	return errs
}
