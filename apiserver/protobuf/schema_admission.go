package protobuf

// admissionMessages are admissionregistration/v1 generated.proto's webhook
// configuration and validating admission policy messages; the JSON names
// are the Go json tags of api/admissionregistration.
func admissionMessages() map[string]fields {
	webhook := fields{
		1: str("name"), 2: msg("clientConfig", "admission.WebhookClientConfig"), 3: msgs("rules", "admission.RuleWithOperations"),
		4: strp("failurePolicy"), 9: strp("matchPolicy"), 5: labelSelector("namespaceSelector"),
		6: strp("sideEffects"), 7: i32p("timeoutSeconds"), 8: strs("admissionReviewVersions"),
	}
	validating, mutating := fields{10: labelSelector("objectSelector"), 11: msgs("matchConditions", "admission.MatchCondition")},
		fields{11: labelSelector("objectSelector"), 12: msgs("matchConditions", "admission.MatchCondition"), 10: strp("reinvocationPolicy")}
	for n, f := range webhook {
		validating[n], mutating[n] = f, f
	}
	return map[string]fields{
		"admission.ValidatingWebhookConfiguration": {1: objectMeta(), 2: msgs("webhooks", "admission.ValidatingWebhook")},
		"admission.MutatingWebhookConfiguration":   {1: objectMeta(), 2: msgs("webhooks", "admission.MutatingWebhook")},
		"admission.ValidatingWebhook":              validating,
		"admission.MutatingWebhook":                mutating,
		"admission.WebhookClientConfig": {
			3: strp("url"), 1: msg("service", "admission.ServiceReference"), 2: byt("caBundle"),
		},
		"admission.ServiceReference":   {1: str("namespace"), 2: str("name"), 3: strp("path"), 4: i32p("port")},
		"admission.RuleWithOperations": {1: strs("operations"), 2: inl("admission.Rule")},
		"admission.Rule":               {1: strs("apiGroups"), 2: strs("apiVersions"), 3: strs("resources"), 4: strp("scope")},
		"admission.MatchCondition":     {1: str("name"), 2: str("expression")},
		"admission.ValidatingAdmissionPolicy": {
			1: objectMeta(), 2: msg("spec", "admission.ValidatingAdmissionPolicySpec"), 3: msg("status", "admission.ValidatingAdmissionPolicyStatus"),
		},
		"admission.ValidatingAdmissionPolicySpec": {
			1: msg("paramKind", "admission.ParamKind"), 2: msg("matchConstraints", "admission.MatchResources"),
			3: msgs("validations", "admission.Validation"), 4: strp("failurePolicy"), 5: msgs("auditAnnotations", "admission.AuditAnnotation"),
			6: msgs("matchConditions", "admission.MatchCondition"), 7: msgs("variables", "admission.Variable"),
		},
		"admission.ParamKind": {1: str("apiVersion"), 2: str("kind")},
		"admission.MatchResources": {
			1: labelSelector("namespaceSelector"), 2: labelSelector("objectSelector"),
			3: msgs("resourceRules", "admission.NamedRuleWithOperations"), 4: msgs("excludeResourceRules", "admission.NamedRuleWithOperations"),
			7: strp("matchPolicy"),
		},
		"admission.NamedRuleWithOperations": {1: strs("resourceNames"), 2: inl("admission.RuleWithOperations")},
		"admission.Validation":              {1: str("expression"), 2: str("message"), 3: strp("reason"), 4: str("messageExpression")},
		"admission.AuditAnnotation":         {1: str("key"), 2: str("valueExpression")},
		"admission.Variable":                {1: str("name"), 2: str("expression")},
		"admission.ValidatingAdmissionPolicyStatus": {
			1: i64("observedGeneration"), 2: msg("typeChecking", "admission.TypeChecking"), 3: msgs("conditions", "meta.Condition"),
		},
		"admission.TypeChecking":      {1: msgs("expressionWarnings", "admission.ExpressionWarning")},
		"admission.ExpressionWarning": {2: str("fieldRef"), 3: str("warning")},
		"admission.ValidatingAdmissionPolicyBinding": {
			1: objectMeta(), 2: msg("spec", "admission.ValidatingAdmissionPolicyBindingSpec"),
		},
		"admission.ValidatingAdmissionPolicyBindingSpec": {
			1: str("policyName"), 2: msg("paramRef", "admission.ParamRef"), 3: msg("matchResources", "admission.MatchResources"),
			4: strs("validationActions"),
		},
		"admission.ParamRef": {
			1: str("name"), 2: str("namespace"), 3: labelSelector("selector"), 4: strp("parameterNotFoundAction"),
		},
	}
}
