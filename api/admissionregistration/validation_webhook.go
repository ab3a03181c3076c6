package admissionregistration

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/admissionregistration/celpolicy"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// AcceptedAdmissionReviewVersions are the AdmissionReview versions the API
// server can send, in its order of preference.
var AcceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}

var (
	supportedOperations      = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	supportedScopes          = []string{"*", "Cluster", "Namespaced"}
	supportedFailurePolicies = []string{"Fail", "Ignore"}
	supportedMatchPolicies   = []string{"Equivalent", "Exact"}
	noSideEffectClasses      = []string{"None", "NoneOnDryRun"}
	supportedReinvocation    = []string{"IfNeeded", "Never"}
)

// ValidateValidatingWebhookConfiguration checks a configuration as
// kube-apiserver does on create, with its messages.
func ValidateValidatingWebhookConfiguration(c *ValidatingWebhookConfiguration) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	seen := map[string]bool{}
	for i := range c.Webhooks {
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(&c.Webhooks[i], p)...)
		if n := c.Webhooks[i].Name; n != "" && seen[n] {
			errs = append(errs, field.Duplicate(p.Child("name"), n))
		}
		seen[c.Webhooks[i].Name] = true
	}
	return errs
}

// ValidateMutatingWebhookConfiguration checks a configuration as
// kube-apiserver does on create, with its messages.
func ValidateMutatingWebhookConfiguration(c *MutatingWebhookConfiguration) field.ErrorList {
	errs := validation.ValidateObjectMeta(&c.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	seen := map[string]bool{}
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		p := field.NewPath("webhooks").Index(i)
		v := w.AsValidating()
		errs = append(errs, validateWebhook(&v, p)...)
		if w.ReinvocationPolicy != nil && !slices.Contains(supportedReinvocation, string(*w.ReinvocationPolicy)) {
			errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), *w.ReinvocationPolicy, supportedReinvocation))
		}
		if w.Name != "" && seen[w.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), w.Name))
		}
		seen[w.Name] = true
	}
	return errs
}

// ValidateValidatingWebhookConfigurationUpdate checks c replacing old.
func ValidateValidatingWebhookConfigurationUpdate(c, old *ValidatingWebhookConfiguration) field.ErrorList {
	errs := ValidateValidatingWebhookConfiguration(c)
	return append(errs, validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateMutatingWebhookConfigurationUpdate checks c replacing old.
func ValidateMutatingWebhookConfigurationUpdate(c, old *MutatingWebhookConfiguration) field.ErrorList {
	errs := ValidateMutatingWebhookConfiguration(c)
	return append(errs, validation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

func validateWebhook(w *ValidatingWebhook, p *field.Path) field.ErrorList {
	errs := ValidateFullyQualifiedName(w.Name, p.Child("name"))
	errs = append(errs, validateAdmissionReviewVersions(w.AdmissionReviewVersions, p.Child("admissionReviewVersions"))...)
	for i := range w.Rules {
		errs = append(errs, validateRuleWithOperations(&w.Rules[i], p.Child("rules").Index(i))...)
	}
	if w.FailurePolicy != nil && !slices.Contains(supportedFailurePolicies, string(*w.FailurePolicy)) {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *w.FailurePolicy, supportedFailurePolicies))
	}
	if w.MatchPolicy != nil && !slices.Contains(supportedMatchPolicies, string(*w.MatchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *w.MatchPolicy, supportedMatchPolicies))
	}
	errs = append(errs, validation.ValidateLabelSelector(w.NamespaceSelector, p.Child("namespaceSelector"))...)
	errs = append(errs, validation.ValidateLabelSelector(w.ObjectSelector, p.Child("objectSelector"))...)
	switch {
	case w.SideEffects == nil:
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of "+strings.Join(noSideEffectClasses, ", ")))
	case !slices.Contains(noSideEffectClasses, string(*w.SideEffects)):
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *w.SideEffects, noSideEffectClasses))
	}
	if t := w.TimeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, validateClientConfig(&w.ClientConfig, p.Child("clientConfig"))...)
	return append(errs, validateMatchConditions(w.MatchConditions, p.Child("matchConditions"))...)
}

func validateAdmissionReviewVersions(versions []string, p *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of "+strings.Join(AcceptedAdmissionReviewVersions, ", "))}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		accepted = accepted || slices.Contains(AcceptedAdmissionReviewVersions, v)
	}
	if !accepted {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of "+strings.Join(AcceptedAdmissionReviewVersions, ", ")))
	}
	return errs
}

func validateRuleWithOperations(r *RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(p.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, OperationAll) {
		errs = append(errs, field.Invalid(p.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(supportedOperations, string(op)) {
			errs = append(errs, field.NotSupported(p.Child("operations").Index(i), op, supportedOperations))
		}
	}
	return append(errs, validateWebhookRule(&r.Rule, p)...)
}

// validateWebhookRule checks a v1 rule: initializer rules' checks, but
// subresources are allowed and the scope must be one kube knows.
func validateWebhookRule(r *Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, field.Invalid(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResourcesWithSubresources(r.Resources, p.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(supportedScopes, string(*r.Scope)) {
		errs = append(errs, field.NotSupported(p.Child("scope"), *r.Scope, supportedScopes))
	}
	return errs
}

func validateResourcesWithSubresources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	wildSub, wildRes := map[string]bool{}, map[string]bool{}
	double, single, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		double = double || rs == "*/*"
		single = single || rs == "*"
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = plain || rs != "*"
			continue
		}
		if wildSub[res] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		wildSub[res] = wildSub[res] || sub == "*"
		wildRes[sub] = wildRes[sub] || res == "*"
	}
	if len(resources) > 1 && double {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if single && plain {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

func validateClientConfig(cc *WebhookClientConfig, p *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		return validateWebhookURL(p.Child("url"), *cc.URL)
	}
	port := int32(443)
	if cc.Service.Port != nil {
		port = *cc.Service.Port
	}
	return validateWebhookService(p.Child("service"), cc.Service, port)
}

func validateWebhookURL(p *field.Path, raw string) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

func validateWebhookService(p *field.Path, s *ServiceReference, port int32) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "service name is required"))
	}
	if s.Namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), "service namespace is required"))
	}
	if msgs := validation.IsValidPortNum(int(port)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if s.Path == nil || *s.Path == "/" || *s.Path == "" {
		return errs
	}
	path := *s.Path
	if path == "//" {
		return append(errs, field.Invalid(p.Child("path"), path, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(path, "/") {
		errs = append(errs, field.Invalid(p.Child("path"), path, "must start with a '/'"))
	}
	check := strings.TrimSuffix(strings.TrimPrefix(path, "/"), "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			errs = append(errs, field.Invalid(p.Child("path"), path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(p.Child("path"), path, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

// validateMatchConditions checks names (qualified, unique) and compiles
// the expressions (which must be bool).
func validateMatchConditions(conds []MatchCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > 64 {
		errs = append(errs, field.TooMany(p, len(conds), 64))
	}
	seen := map[string]bool{}
	for i, c := range conds {
		ip := p.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(ip.Child("name"), ""))
		default:
			for _, msg := range validation.IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(ip.Child("name"), c.Name, msg))
			}
			if seen[c.Name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), c.Name))
			}
			seen[c.Name] = true
		}
		errs = append(errs, validateExpression(c.Expression, celpolicy.Bool, ip.Child("expression"))...)
	}
	return errs
}

// validateExpression compiles a required CEL expression.
func validateExpression(expr string, want celpolicy.Result, p *field.Path) field.ErrorList {
	if strings.TrimSpace(expr) == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if _, err := celpolicy.Compile(expr, want); err != nil {
		return field.ErrorList{field.Invalid(p, expr, err.Error())}
	}
	return nil
}
