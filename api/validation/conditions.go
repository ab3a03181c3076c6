package validation

import (
	"regexp"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// Limits of a meta/v1 Condition, as Kubernetes declares them.
const (
	MaxConditionReasonLen  = 1024
	MaxConditionMessageLen = 32 * 1024
)

// conditionReasonRE is meta/v1's pattern for a condition reason.
var conditionReasonRE = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

// ValidateConditions checks a list of meta/v1 Conditions as Kubernetes'
// ValidateConditions does, for every kind whose status carries them: each
// type is a qualified name and appears once, the status is True, False or
// Unknown, observedGeneration is not negative, lastTransitionTime is set,
// the reason is a CamelCase identifier of at most 1024 bytes and the
// message at most 32 KiB. p is the path of the list.
func ValidateConditions(cs []meta.Condition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(cs))
	for i, c := range cs {
		cp := p.Index(i)
		switch {
		case c.Type == "":
			errs = append(errs, field.Required(cp.Child("type"), "must be set"))
		case seen[c.Type]:
			errs = append(errs, field.Duplicate(cp.Child("type"), c.Type))
		default:
			for _, m := range IsQualifiedName(c.Type) {
				errs = append(errs, field.Invalid(cp.Child("type"), c.Type, m))
			}
		}
		seen[c.Type] = true
		switch c.Status {
		case meta.ConditionTrue, meta.ConditionFalse, meta.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(cp.Child("status"), string(c.Status), []string{"False", "True", "Unknown"}))
		}
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(cp.Child("observedGeneration"), c.ObservedGeneration, "must be greater than or equal to zero"))
		}
		if c.LastTransitionTime.IsZero() {
			errs = append(errs, field.Required(cp.Child("lastTransitionTime"), "must be set"))
		}
		errs = append(errs, validateConditionReason(c.Reason, cp.Child("reason"))...)
		if len(c.Message) > MaxConditionMessageLen {
			errs = append(errs, field.TooLong(cp.Child("message"), "", MaxConditionMessageLen))
		}
	}
	return errs
}

func validateConditionReason(r string, p *field.Path) field.ErrorList {
	switch {
	case r == "":
		return field.ErrorList{field.Required(p, "must be set")}
	case len(r) > MaxConditionReasonLen:
		return field.ErrorList{field.TooLong(p, "", MaxConditionReasonLen)}
	case !conditionReasonRE.MatchString(r):
		return field.ErrorList{field.Invalid(p, r, RegexError(
			"a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
			conditionReasonRE.String(), "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB"))}
	}
	return nil
}
