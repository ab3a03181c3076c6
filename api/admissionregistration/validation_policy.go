package admissionregistration

import (
	"slices"
	"strings"

	"github.com/orkit/orkit/api/admissionregistration/celpolicy"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

var (
	supportedPolicyReasons = []string{"Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"}
	supportedActions       = []string{"Audit", "Deny", "Warn"}
)

// ValidateValidatingAdmissionPolicy checks a policy as kube-apiserver
// does, compiling its expressions, with its messages.
func ValidateValidatingAdmissionPolicy(p *ValidatingAdmissionPolicy) field.ErrorList {
	errs := validation.ValidateObjectMeta(&p.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	s := &p.Spec
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
	}
	if s.FailurePolicy == nil {
		errs = append(errs, field.Required(sp.Child("failurePolicy"), ""))
	} else if !slices.Contains(supportedFailurePolicies, string(*s.FailurePolicy)) {
		errs = append(errs, field.NotSupported(sp.Child("failurePolicy"), *s.FailurePolicy, supportedFailurePolicies))
	}
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		errs = append(errs, field.Required(sp.Child("validations"), msg), field.Required(sp.Child("auditAnnotations"), msg))
	}
	for i, v := range s.Validations {
		errs = append(errs, validateValidation(v, sp.Child("validations").Index(i))...)
	}
	for i, a := range s.AuditAnnotations {
		ap := sp.Child("auditAnnotations").Index(i)
		if a.Key == "" {
			errs = append(errs, field.Required(ap.Child("key"), ""))
		}
		errs = append(errs, validateExpression(a.ValueExpression, celpolicy.Any, ap.Child("valueExpression"))...)
	}
	for i, v := range s.Variables {
		vp := sp.Child("variables").Index(i)
		if v.Name == "" {
			errs = append(errs, field.Required(vp.Child("name"), "name is not specified"))
		}
		errs = append(errs, validateExpression(v.Expression, celpolicy.Any, vp.Child("expression"))...)
	}
	return append(errs, validateMatchConditions(s.MatchConditions, sp.Child("matchConditions"))...)
}

// ValidateValidatingAdmissionPolicyUpdate checks p replacing old.
func ValidateValidatingAdmissionPolicyUpdate(p, old *ValidatingAdmissionPolicy) field.ErrorList {
	errs := ValidateValidatingAdmissionPolicy(p)
	return append(errs, validation.ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

func validateParamKind(k *ParamKind, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if k.APIVersion == "" {
		errs = append(errs, field.Required(p.Child("apiVersion"), ""))
	} else {
		group, version, ok := strings.Cut(k.APIVersion, "/")
		if !ok {
			group, version = "", k.APIVersion
		}
		if group != "" {
			if msgs := validation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("apiVersion"), group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), k.APIVersion, "version must be specified"))
		} else if msgs := validation.IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), version, strings.Join(msgs, ",")))
		}
	}
	if k.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if msgs := validation.IsDNS1035Label(strings.ToLower(k.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

func validateValidation(v Validation, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	} else if _, err := celpolicy.Compile(v.Expression, celpolicy.Bool); err != nil {
		errs = append(errs, field.Invalid(p.Child("expression"), v.Expression, err.Error()))
	}
	msgExpr := strings.TrimSpace(v.MessageExpression)
	if v.MessageExpression != "" && msgExpr == "" {
		errs = append(errs, field.Invalid(p.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if msgExpr != "" {
		if _, err := celpolicy.Compile(v.MessageExpression, celpolicy.String); err != nil {
			errs = append(errs, field.Invalid(p.Child("messageExpression"), v.MessageExpression, err.Error()))
		}
	}
	msg := strings.TrimSpace(v.Message)
	switch {
	case v.Message != "" && msg == "":
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "message must be non-empty if specified"))
	case strings.ContainsAny(msg, "\n\r"):
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "message must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(supportedPolicyReasons, string(*v.Reason)) {
		errs = append(errs, field.NotSupported(p.Child("reason"), *v.Reason, supportedPolicyReasons))
	}
	return errs
}

func validateMatchResources(m *MatchResources, p *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	if m.MatchPolicy == nil {
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	} else if !slices.Contains(supportedMatchPolicies, string(*m.MatchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *m.MatchPolicy, supportedMatchPolicies))
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, field.Required(p.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, validation.ValidateLabelSelector(m.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	// kube-apiserver reports the object selector as labelSelector.
	if m.ObjectSelector == nil {
		errs = append(errs, field.Required(p.Child("labelSelector"), ""))
	} else {
		errs = append(errs, validation.ValidateLabelSelector(m.ObjectSelector, p.Child("labelSelector"))...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], p.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

func validateNamedRule(r *NamedRuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, n := range r.ResourceNames {
		for _, msg := range validatePathSegmentName(n) {
			errs = append(errs, field.Invalid(p.Child("resourceNames").Index(i), n, msg))
		}
		if seen[n] {
			errs = append(errs, field.Duplicate(p.Child("resourceNames").Index(i), n))
		}
		seen[n] = true
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, p)...)
}

// validatePathSegmentName is kube's path.ValidatePathSegmentName: a name
// that can be one segment of a URL path.
func validatePathSegmentName(name string) []string {
	if name == "." || name == ".." {
		return []string{`may not be '` + name + `'`}
	}
	var msgs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, `may not contain '`+bad+`'`)
		}
	}
	return msgs
}

// ValidateValidatingAdmissionPolicyBinding checks a binding as
// kube-apiserver does, with its messages (and its field path
// "spec.matchResouces", sic).
func ValidateValidatingAdmissionPolicyBinding(b *ValidatingAdmissionPolicyBinding) field.ErrorList {
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
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, sp.Child("matchResouces"))...)
	return append(errs, validateValidationActions(b.Spec.ValidationActions, sp.Child("validationActions"))...)
}

// ValidateValidatingAdmissionPolicyBindingUpdate checks b replacing old.
func ValidateValidatingAdmissionPolicyBindingUpdate(b, old *ValidatingAdmissionPolicyBinding) field.ErrorList {
	errs := ValidateValidatingAdmissionPolicyBinding(b)
	return append(errs, validation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

func validateParamRef(r *ParamRef, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	const exclusive = "name and selector are mutually exclusive"
	if r.Name != "" {
		for _, msg := range validatePathSegmentName(r.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), r.Name, msg))
		}
		if r.Selector != nil {
			errs = append(errs, field.Forbidden(p.Child("name"), exclusive))
		}
	}
	if r.Selector != nil {
		errs = append(errs, validation.ValidateLabelSelector(r.Selector, p.Child("selector"))...)
		if r.Name != "" {
			errs = append(errs, field.Forbidden(p.Child("selector"), exclusive))
		}
	}
	if r.Name == "" && r.Selector == nil {
		errs = append(errs, field.Required(p, "one of name or selector must be specified"))
	}
	switch {
	case r.ParameterNotFoundAction == nil || *r.ParameterNotFoundAction == "":
		errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
	case *r.ParameterNotFoundAction != DenyAction && *r.ParameterNotFoundAction != AllowAction:
		errs = append(errs, field.NotSupported(p.Child("parameterNotFoundAction"), *r.ParameterNotFoundAction, []string{string(DenyAction), string(AllowAction)}))
	}
	return errs
}

func validateValidationActions(actions []ValidationAction, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[ValidationAction]bool{}
	for i, a := range actions {
		if !slices.Contains(supportedActions, string(a)) {
			errs = append(errs, field.NotSupported(p.Index(i), a, supportedActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(p.Index(i), a))
		}
		seen[a] = true
	}
	if seen[Deny] && seen[Warn] {
		errs = append(errs, field.Invalid(p, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, field.Required(p, "at least one validation action is required"))
	}
	return errs
}

// StatusReason returns the reason a failed v reports: its own, or
// Invalid as Kubernetes defaults it.
func (v Validation) StatusReason() meta.StatusReason {
	if v.Reason != nil {
		return *v.Reason
	}
	return meta.StatusReasonInvalid
}
