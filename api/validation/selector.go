package validation

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// ValidateLabelSelector checks a label selector: matchLabels as labels,
// and for each matchExpressions entry a known operator, values present for
// In and NotIn and absent for Exists and DoesNotExist, a qualified-name key
// and valid label values. A nil selector is valid (it selects nothing).
func ValidateLabelSelector(s *meta.LabelSelector, p *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := ValidateLabels(s.MatchLabels, p.Child("matchLabels"))
	for i, r := range s.MatchExpressions {
		errs = append(errs, validateLabelSelectorRequirement(r, p.Child("matchExpressions").Index(i))...)
	}
	return errs
}

func validateLabelSelectorRequirement(r meta.LabelSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case meta.LabelSelectorOpIn, meta.LabelSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case meta.LabelSelectorOpExists, meta.LabelSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), string(r.Operator), "not a valid selector operator"))
	}
	errs = append(errs, validateLabelKey(r.Key, p.Child("key"))...)
	for i, v := range r.Values {
		for _, msg := range IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(p.Child("values").Index(i), v, msg))
		}
	}
	return errs
}
