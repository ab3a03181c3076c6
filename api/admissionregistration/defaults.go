package admissionregistration

import "github.com/orkit/orkit/api/meta"

// DefaultTimeoutSeconds is a webhook's timeout when timeoutSeconds is unset.
const DefaultTimeoutSeconds int32 = 10

func ptrTo[T any](v T) *T { return &v }

// defaultRules gives every rule without a scope "*".
func defaultRules(rules []RuleWithOperations) {
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptrTo(AllScopes)
		}
	}
}

func defaultSelector(s **meta.LabelSelector) {
	if *s == nil {
		*s = &meta.LabelSelector{}
	}
}

func defaultClientConfig(cc *WebhookClientConfig) {
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptrTo(int32(443))
	}
}

// DefaultValidatingWebhookConfiguration fills what kube-apiserver's v1
// defaults fill in each webhook: failurePolicy Fail, matchPolicy
// Equivalent, empty (match-all) namespace and object selectors, timeout
// 10s, rule scope "*" and service port 443.
func DefaultValidatingWebhookConfiguration(c *ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		if w.FailurePolicy == nil {
			w.FailurePolicy = ptrTo(Fail)
		}
		if w.MatchPolicy == nil {
			w.MatchPolicy = ptrTo(Equivalent)
		}
		defaultSelector(&w.NamespaceSelector)
		defaultSelector(&w.ObjectSelector)
		if w.TimeoutSeconds == nil {
			w.TimeoutSeconds = ptrTo(DefaultTimeoutSeconds)
		}
		defaultRules(w.Rules)
		defaultClientConfig(&w.ClientConfig)
	}
}

// DefaultMutatingWebhookConfiguration fills the defaults of
// DefaultValidatingWebhookConfiguration and reinvocationPolicy Never.
func DefaultMutatingWebhookConfiguration(c *MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		if w.FailurePolicy == nil {
			w.FailurePolicy = ptrTo(Fail)
		}
		if w.MatchPolicy == nil {
			w.MatchPolicy = ptrTo(Equivalent)
		}
		defaultSelector(&w.NamespaceSelector)
		defaultSelector(&w.ObjectSelector)
		if w.TimeoutSeconds == nil {
			w.TimeoutSeconds = ptrTo(DefaultTimeoutSeconds)
		}
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptrTo(NeverReinvocationPolicy)
		}
		defaultRules(w.Rules)
		defaultClientConfig(&w.ClientConfig)
	}
}

// defaultMatchResources fills matchPolicy Equivalent, empty selectors and
// rule scopes "*" of m (nil stays nil).
func defaultMatchResources(m *MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptrTo(Equivalent)
	}
	defaultSelector(&m.NamespaceSelector)
	defaultSelector(&m.ObjectSelector)
	for i := range m.ResourceRules {
		if m.ResourceRules[i].Scope == nil {
			m.ResourceRules[i].Scope = ptrTo(AllScopes)
		}
	}
	for i := range m.ExcludeResourceRules {
		if m.ExcludeResourceRules[i].Scope == nil {
			m.ExcludeResourceRules[i].Scope = ptrTo(AllScopes)
		}
	}
}

// DefaultValidatingAdmissionPolicy fills failurePolicy Fail and the
// defaults of matchConstraints.
func DefaultValidatingAdmissionPolicy(p *ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptrTo(Fail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

// DefaultValidatingAdmissionPolicyBinding fills the defaults of
// matchResources.
func DefaultValidatingAdmissionPolicyBinding(b *ValidatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}
