package admissionregistration

import "github.com/orkit/orkit/api/meta"

// V1 is the API version of the webhook configurations and the validating
// admission policies (admissionregistration.k8s.io/v1).
const V1 = "v1"

// FailurePolicyType says what happens when a webhook cannot be called or a
// policy cannot be evaluated.
type FailurePolicyType string

// The failure policies.
const (
	// Ignore admits the request as if the webhook or policy had allowed it.
	Ignore FailurePolicyType = "Ignore"
	// Fail rejects the request.
	Fail FailurePolicyType = "Fail"
)

// MatchPolicyType says how rules match a request made through another
// version or group of the same resource.
type MatchPolicyType string

// The match policies.
const (
	// Exact matches only the group, version and resource the rules name.
	Exact MatchPolicyType = "Exact"
	// Equivalent also matches the request when it is made through an
	// equivalent resource (another version of it), converting the object.
	Equivalent MatchPolicyType = "Equivalent"
)

// SideEffectClass says whether calling a webhook changes anything outside
// the AdmissionReview.
type SideEffectClass string

// The side-effect classes (Unknown and Some are v1beta1's; v1 refuses them
// on new configurations).
const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ReinvocationPolicyType says whether a mutating webhook is called again
// when a later mutating plugin changed the object.
type ReinvocationPolicyType string

// The reinvocation policies.
const (
	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)

// ScopeType says which objects a rule matches by scope.
type ScopeType string

// The scopes.
const (
	ClusterScope    ScopeType = "Cluster"
	NamespacedScope ScopeType = "Namespaced"
	AllScopes       ScopeType = "*"
)

// OperationType is an operation a rule matches.
type OperationType string

// The operations.
const (
	OperationAll OperationType = "*"
	Create       OperationType = "CREATE"
	Update       OperationType = "UPDATE"
	Delete       OperationType = "DELETE"
	Connect      OperationType = "CONNECT"
)

// RuleWithOperations is a Rule plus the operations it matches.
type RuleWithOperations struct {
	// Operations matched; "*" means all. Required.
	Operations []OperationType `json:"operations,omitempty"`
	Rule       `json:",inline"`
}

// NamedRuleWithOperations is a RuleWithOperations limited to some object
// names (empty means all).
type NamedRuleWithOperations struct {
	ResourceNames      []string `json:"resourceNames,omitempty"`
	RuleWithOperations `json:",inline"`
}

// ServiceReference names the Service a webhook is reached through: its
// port (default 443) and the URL path.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// WebhookClientConfig says how to reach a webhook over TLS: exactly one of
// URL and Service, and the PEM CA bundle that signed its serving
// certificate (empty means the API server's system roots).
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// MatchCondition is a named CEL expression a request must satisfy (true)
// for the webhook or policy to apply.
type MatchCondition struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

// ValidatingWebhook is one webhook of a ValidatingWebhookConfiguration:
// where it is, which requests it sees and what happens when it fails.
type ValidatingWebhook struct {
	// Name is fully qualified ("policy.example.com") and unique in its
	// configuration.
	Name                    string               `json:"name"`
	ClientConfig            WebhookClientConfig  `json:"clientConfig"`
	Rules                   []RuleWithOperations `json:"rules,omitempty"`
	FailurePolicy           *FailurePolicyType   `json:"failurePolicy,omitempty"`
	MatchPolicy             *MatchPolicyType     `json:"matchPolicy,omitempty"`
	NamespaceSelector       *meta.LabelSelector  `json:"namespaceSelector,omitempty"`
	ObjectSelector          *meta.LabelSelector  `json:"objectSelector,omitempty"`
	SideEffects             *SideEffectClass     `json:"sideEffects"`
	TimeoutSeconds          *int32               `json:"timeoutSeconds,omitempty"`
	AdmissionReviewVersions []string             `json:"admissionReviewVersions"`
	MatchConditions         []MatchCondition     `json:"matchConditions,omitempty"`
}

// MutatingWebhook is one webhook of a MutatingWebhookConfiguration: a
// ValidatingWebhook's fields plus its reinvocation policy.
type MutatingWebhook struct {
	Name                    string                  `json:"name"`
	ClientConfig            WebhookClientConfig     `json:"clientConfig"`
	Rules                   []RuleWithOperations    `json:"rules,omitempty"`
	FailurePolicy           *FailurePolicyType      `json:"failurePolicy,omitempty"`
	MatchPolicy             *MatchPolicyType        `json:"matchPolicy,omitempty"`
	NamespaceSelector       *meta.LabelSelector     `json:"namespaceSelector,omitempty"`
	ObjectSelector          *meta.LabelSelector     `json:"objectSelector,omitempty"`
	SideEffects             *SideEffectClass        `json:"sideEffects"`
	TimeoutSeconds          *int32                  `json:"timeoutSeconds,omitempty"`
	AdmissionReviewVersions []string                `json:"admissionReviewVersions"`
	ReinvocationPolicy      *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty"`
	MatchConditions         []MatchCondition        `json:"matchConditions,omitempty"`
}

// ValidatingWebhookConfiguration is a cluster-scoped list of validating
// webhooks, called in parallel after the mutating phase.
type ValidatingWebhookConfiguration struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Webhooks        []ValidatingWebhook `json:"webhooks,omitempty"`
}

// ValidatingWebhookConfigurationList is a list of ValidatingWebhookConfigurations.
type ValidatingWebhookConfigurationList = meta.List[ValidatingWebhookConfiguration]

// MutatingWebhookConfiguration is a cluster-scoped list of mutating
// webhooks, called one after another in the mutating phase.
type MutatingWebhookConfiguration struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Webhooks        []MutatingWebhook `json:"webhooks,omitempty"`
}

// MutatingWebhookConfigurationList is a list of MutatingWebhookConfigurations.
type MutatingWebhookConfigurationList = meta.List[MutatingWebhookConfiguration]

// AsValidating returns the fields w shares with a ValidatingWebhook, so one
// matcher serves both kinds. The slices and pointers are shared with w.
func (w *MutatingWebhook) AsValidating() ValidatingWebhook {
	return ValidatingWebhook{
		Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
		MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
		SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
		AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
	}
}
