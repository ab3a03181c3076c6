package admissionregistration

import (
	"slices"
	"strings"

	"github.com/orkit/orkit/api/admissionregistration/celpolicy"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

var (
	// supportedMutatingOperations: a mutating policy cannot act on DELETE.
	supportedMutatingOperations = []string{"*", "CONNECT", "CREATE", "UPDATE"}
	supportedPatchTypes         = []string{string(PatchTypeApplyConfiguration), string(PatchTypeJSONPatch)}
)

// ValidateMutatingAdmissionPolicy checks a policy as kube-apiserver does,
// with its messages: failurePolicy, paramKind, matchConstraints with
// resourceRules and no DELETE, matchConditions, variables, at least one
// mutation whose patchType names the one member it sets, a supported
// reinvocationPolicy. Every expression is compiled; the mutations' in the
// environment of celpolicy.CompileMutation, where Object{...} fields are
// dynamic (kube type-checks them against the matched resources' schemas,
// which orkit does not build).
func ValidateMutatingAdmissionPolicy(p *MutatingAdmissionPolicy) field.ErrorList {
	errs := validation.ValidateObjectMeta(&p.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	s := &p.Spec
	if s.FailurePolicy == nil {
		errs = append(errs, field.Required(sp.Child("failurePolicy"), ""))
	} else if !slices.Contains(supportedFailurePolicies, string(*s.FailurePolicy)) {
		errs = append(errs, field.NotSupported(sp.Child("failurePolicy"), *s.FailurePolicy, supportedFailurePolicies))
	}
	if s.ParamKind != nil {
		errs = append(errs, validateParamKind(s.ParamKind, sp.Child("paramKind"))...)
	}
	if s.MatchConstraints == nil {
		errs = append(errs, field.Required(sp.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(s.MatchConstraints, sp.Child("matchConstraints"))...)
		if len(s.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(sp.Child("matchConstraints", "resourceRules"), ""))
		}
		errs = append(errs, validateMutatingOperations(s.MatchConstraints, sp.Child("matchConstraints", "resourceRules", "operations"))...)
	}
	errs = append(errs, validateMatchConditions(s.MatchConditions, sp.Child("matchConditions"))...)
	for i, v := range s.Variables {
		vp := sp.Child("variables").Index(i)
		if v.Name == "" {
			errs = append(errs, field.Required(vp.Child("name"), "name is not specified"))
		}
		errs = append(errs, validateExpression(v.Expression, celpolicy.Any, vp.Child("expression"))...)
	}
	if len(s.Mutations) == 0 {
		errs = append(errs, field.Required(sp.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range s.Mutations {
		errs = append(errs, validateMutation(&s.Mutations[i], sp.Child("mutations").Index(i))...)
	}
	if s.ReinvocationPolicy == "" {
		errs = append(errs, field.Required(sp.Child("reinvocationPolicy"), ""))
	} else if !slices.Contains(supportedReinvocation, string(s.ReinvocationPolicy)) {
		errs = append(errs, field.NotSupported(sp.Child("reinvocationPolicy"), s.ReinvocationPolicy, supportedReinvocation))
	}
	return errs
}

// ValidateMutatingAdmissionPolicyUpdate checks p replacing old.
func ValidateMutatingAdmissionPolicyUpdate(p, old *MutatingAdmissionPolicy) field.ErrorList {
	errs := ValidateMutatingAdmissionPolicy(p)
	return append(errs, validation.ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// validateMutatingOperations refuses DELETE in m's resource rules.
func validateMutatingOperations(m *MatchResources, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, r := range m.ResourceRules {
		for _, op := range r.Operations {
			if !slices.Contains(supportedMutatingOperations, string(op)) {
				errs = append(errs, field.NotSupported(p, op, supportedMutatingOperations))
			}
		}
	}
	return errs
}

func validateMutation(m *Mutation, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(p.Child("patchType"), ""))
	case PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(p.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			errs = append(errs, validateMutationExpression(m.JSONPatch.Expression, p.Child("jsonPatch", "expression"))...)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(p.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(p.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			errs = append(errs, validateMutationExpression(m.ApplyConfiguration.Expression, p.Child("applyConfiguration", "expression"))...)
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(p.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("patchType"), m.PatchType, supportedPatchTypes))
	}
	return errs
}

func validateMutationExpression(expr string, p *field.Path) field.ErrorList {
	trimmed := strings.TrimSpace(expr)
	if trimmed == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if _, err := celpolicy.CompileMutation(trimmed); err != nil {
		return field.ErrorList{field.Invalid(p, expr, err.Error())}
	}
	return nil
}

// ValidateMutatingAdmissionPolicyBinding checks a binding as
// kube-apiserver does: a policy name, a paramRef, matchResources without
// DELETE.
func ValidateMutatingAdmissionPolicyBinding(b *MutatingAdmissionPolicyBinding) field.ErrorList {
	errs := validation.ValidateObjectMeta(&b.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	if b.Spec.PolicyName == "" {
		errs = append(errs, field.Required(sp.Child("policyName"), ""))
	} else {
		for _, msg := range validation.NameIsDNSSubdomain(b.Spec.PolicyName, false) {
			errs = append(errs, field.Invalid(sp.Child("policyName"), b.Spec.PolicyName, msg))
		}
	}
	errs = append(errs, validateParamRef(b.Spec.ParamRef, sp.Child("paramRef"))...)
	if m := b.Spec.MatchResources; m != nil {
		errs = append(errs, validateMatchResources(m, sp.Child("matchResources"))...)
		errs = append(errs, validateMutatingOperations(m, sp.Child("matchResources", "resourceRules", "operations"))...)
	}
	return errs
}

// ValidateMutatingAdmissionPolicyBindingUpdate checks b replacing old.
func ValidateMutatingAdmissionPolicyBindingUpdate(b, old *MutatingAdmissionPolicyBinding) field.ErrorList {
	errs := ValidateMutatingAdmissionPolicyBinding(b)
	return append(errs, validation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}
