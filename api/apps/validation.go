package apps

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// Messages of the checks shared by every workload kind, worded as
// Kubernetes words them.
const (
	msgSelectorMismatch = "`selector` does not match template `labels`"
	msgPercent          = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)

var percentRE = regexp.MustCompile(`^[0-9]+%$`)

// validateSelector checks a workload's selector at p: required, valid, and
// not empty (kind names the workload in the message).
func validateSelector(sel *meta.LabelSelector, kind string, p *field.Path) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	errs := validation.ValidateLabelSelector(sel, p)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(p, sel, "empty selector is invalid for "+kind))
	}
	return errs
}

// validateTemplate checks a workload's pod template at p: the selector must
// match its labels, core validates the pod, and workloads only run pods
// with restartPolicy Always and no activeDeadlineSeconds.
func validateTemplate(t *core.PodTemplateSpec, sel *meta.LabelSelector, kind string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if sel != nil {
		// A selector that does not parse is reported by validateSelector.
		s, err := labels.SelectorFromLabelSelector(sel)
		if err == nil && !s.Empty() && !s.Matches(labels.Set(t.Labels)) {
			errs = append(errs, field.Invalid(p.Child("metadata", "labels"), t.Labels, msgSelectorMismatch))
		}
	}
	errs = append(errs, core.ValidatePodTemplateSpec(t, p)...)
	if t.Spec.RestartPolicy != core.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(p.Child("spec", "restartPolicy"), string(t.Spec.RestartPolicy),
			[]string{string(core.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(p.Child("spec", "activeDeadlineSeconds"),
			"activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return errs
}

// ValidatePositiveIntOrPercent checks that v is a non-negative integer or a
// percentage string ("25%").
func ValidatePositiveIntOrPercent(v meta.IntOrString, p *field.Path) field.ErrorList {
	if v.IsString {
		if !percentRE.MatchString(v.StrVal) {
			return field.ErrorList{field.Invalid(p, v.StrVal, msgPercent)}
		}
		return nil
	}
	return validation.ValidateNonnegativeField(int64(v.IntVal), p)
}

// intOrPercentValue returns the number in v (the percentage for "25%"), or
// -1 when it is neither.
func intOrPercentValue(v *meta.IntOrString) int {
	if v == nil {
		return 0
	}
	if !v.IsString {
		return int(v.IntVal)
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	if err != nil {
		return -1
	}
	return n
}

// isNotMoreThan100Percent rejects a percentage above 100%.
func isNotMoreThan100Percent(v *meta.IntOrString, p *field.Path) field.ErrorList {
	if v == nil || !v.IsString || !percentRE.MatchString(v.StrVal) || intOrPercentValue(v) <= 100 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, v.StrVal, "must not be greater than 100%")}
}

func validateOptionalIntOrPercent(v *meta.IntOrString, p *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	return ValidatePositiveIntOrPercent(*v, p)
}

func validateNonnegative32(v *int32, p *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	return validation.ValidateNonnegativeField(int64(*v), p)
}

func statusNotAbove(errs field.ErrorList, v, limit int32, p *field.Path, limitName string) field.ErrorList {
	if v > limit {
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("cannot be greater than %s", limitName)))
	}
	return errs
}
