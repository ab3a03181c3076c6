package flowcontrol

import "github.com/orkit/orkit/api/meta"

// GroupName and Version name the API group.
const (
	GroupName = "flowcontrol.apiserver.k8s.io"
	Version   = "v1"
)

// GroupVersion returns flowcontrol.apiserver.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// Wildcards and well-known names of the API.
const (
	// VerbAll, APIGroupAll, ResourceAll, NonResourceAll, NamespaceEvery
	// and NameAll are the "*" wildcards of rules and subjects.
	VerbAll        = "*"
	APIGroupAll    = "*"
	ResourceAll    = "*"
	NonResourceAll = "*"
	NamespaceEvery = "*"
	NameAll        = "*"

	// NameExempt is the name of the mandatory exempt FlowSchema and
	// PriorityLevelConfiguration; NameCatchAll of the catch-all ones.
	NameExempt   = "exempt"
	NameCatchAll = "catch-all"

	// AutoUpdateAnnotationKey, set to "true", lets the API server bring a
	// bootstrap object's spec back to its built-in value at start.
	AutoUpdateAnnotationKey = "apf.kubernetes.io/autoupdate-spec"

	// MaxMatchingPrecedence is the largest matchingPrecedence allowed;
	// DefaultMatchingPrecedence is what a zero one becomes.
	MaxMatchingPrecedence     int32 = 10000
	DefaultMatchingPrecedence int32 = 1000
)

// FlowSchema assigns the requests it matches to a priority level and
// divides them into flows.
type FlowSchema struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            FlowSchemaSpec   `json:"spec,omitempty"`
	Status          FlowSchemaStatus `json:"status,omitempty"`
}

// FlowSchemaList is a list of FlowSchemas.
type FlowSchemaList = meta.List[FlowSchema]

// FlowSchemaSpec is what a FlowSchema matches and where it sends it.
type FlowSchemaSpec struct {
	// PriorityLevelConfiguration names the level matched requests go to.
	PriorityLevelConfiguration PriorityLevelConfigurationReference `json:"priorityLevelConfiguration"`
	// MatchingPrecedence orders schemas: the lowest that matches wins
	// (1..10000; 0 is defaulted to 1000).
	MatchingPrecedence int32 `json:"matchingPrecedence"`
	// DistinguisherMethod splits matched requests into flows; nil puts
	// them all in one flow.
	DistinguisherMethod *FlowDistinguisherMethod `json:"distinguisherMethod,omitempty"`
	// Rules match a request when any one rule does; none matches nothing.
	Rules []PolicyRulesWithSubjects `json:"rules,omitempty"`
}

// FlowDistinguisherMethodType is how requests are split into flows.
type FlowDistinguisherMethodType string

// The distinguisher methods.
const (
	FlowDistinguisherMethodByUserType      FlowDistinguisherMethodType = "ByUser"
	FlowDistinguisherMethodByNamespaceType FlowDistinguisherMethodType = "ByNamespace"
)

// FlowDistinguisherMethod names a distinguisher method.
type FlowDistinguisherMethod struct {
	Type FlowDistinguisherMethodType `json:"type"`
}

// PriorityLevelConfigurationReference names a PriorityLevelConfiguration.
type PriorityLevelConfigurationReference struct {
	Name string `json:"name"`
}

// PolicyRulesWithSubjects matches a request made by one of Subjects that
// one of the resource or non-resource rules matches.
type PolicyRulesWithSubjects struct {
	Subjects         []Subject               `json:"subjects"`
	ResourceRules    []ResourcePolicyRule    `json:"resourceRules,omitempty"`
	NonResourceRules []NonResourcePolicyRule `json:"nonResourceRules,omitempty"`
}

// SubjectKind is the kind of a Subject.
type SubjectKind string

// The subject kinds.
const (
	SubjectKindUser           SubjectKind = "User"
	SubjectKindGroup          SubjectKind = "Group"
	SubjectKindServiceAccount SubjectKind = "ServiceAccount"
)

// Subject is a user, a group or a service account; exactly the member
// named by Kind is set.
type Subject struct {
	Kind           SubjectKind            `json:"kind"`
	User           *UserSubject           `json:"user,omitempty"`
	Group          *GroupSubject          `json:"group,omitempty"`
	ServiceAccount *ServiceAccountSubject `json:"serviceAccount,omitempty"`
}

// UserSubject names a user ("*" for all).
type UserSubject struct {
	Name string `json:"name"`
}

// GroupSubject names a group ("system:authenticated" and friends).
type GroupSubject struct {
	Name string `json:"name"`
}

// ServiceAccountSubject names a service account ("*" for every one in
// the namespace).
type ServiceAccountSubject struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// ResourcePolicyRule matches resource requests by verb, API group,
// resource (with "/subresource") and namespace; ClusterScope matches
// requests outside any namespace.
type ResourcePolicyRule struct {
	Verbs        []string `json:"verbs"`
	APIGroups    []string `json:"apiGroups"`
	Resources    []string `json:"resources"`
	ClusterScope bool     `json:"clusterScope,omitempty"`
	Namespaces   []string `json:"namespaces"`
}

// NonResourcePolicyRule matches non-resource requests by verb and URL
// path ("/healthz", "/apis/*", "*").
type NonResourcePolicyRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs"`
}

// FlowSchemaStatus is the observed state of a FlowSchema.
type FlowSchemaStatus struct {
	Conditions []FlowSchemaCondition `json:"conditions,omitempty"`
}

// FlowSchemaConditionType names a FlowSchema condition.
type FlowSchemaConditionType string

// FlowSchemaConditionDangling is True when the referenced priority level
// does not exist.
const FlowSchemaConditionDangling FlowSchemaConditionType = "Dangling"

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// FlowSchemaCondition is one condition of a FlowSchema.
type FlowSchemaCondition struct {
	Type               FlowSchemaConditionType `json:"type,omitempty"`
	Status             ConditionStatus         `json:"status,omitempty"`
	LastTransitionTime meta.Time               `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// SetDefaultsFlowSchema fills kube-apiserver's defaults: a zero
// matchingPrecedence becomes 1000.
func SetDefaultsFlowSchema(fs *FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = DefaultMatchingPrecedence
	}
}
