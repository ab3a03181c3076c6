package apiextensions

import (
	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/meta"
)

// GroupName is the API group of CustomResourceDefinition.
const GroupName = "apiextensions.k8s.io"

// Version is the API version of CustomResourceDefinition.
const Version = "v1"

// CustomResourceDefinition declares a resource served from objects instead
// of code: its group, names, scope, versions and their schemas. Its name
// must be <spec.names.plural>.<spec.group>.
type CustomResourceDefinition struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            CustomResourceDefinitionSpec   `json:"spec"`
	Status          CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionList is a list of CustomResourceDefinitions.
type CustomResourceDefinitionList = meta.List[CustomResourceDefinition]

// CustomResourceDefinitionSpec is what a CRD declares.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the resource (a DNS subdomain with at
	// least one dot).
	Group string `json:"group"`
	// Names are the resource's names in REST paths and kubectl.
	Names CustomResourceDefinitionNames `json:"names"`
	// Scope is Namespaced or Cluster.
	Scope ResourceScope `json:"scope"`
	// Versions are the served versions; exactly one is the storage
	// version.
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// Conversion says how objects convert between versions (None: only
	// apiVersion changes).
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// PreserveUnknownFields keeps fields the schema does not specify;
	// v1 CRDs must leave it false.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// ResourceScope is where objects of a resource live.
type ResourceScope string

// The scopes.
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// ConversionStrategyType is how objects convert between versions.
type ConversionStrategyType string

// The conversion strategies. orkit implements None only.
const (
	NoneConverter    ConversionStrategyType = "None"
	WebhookConverter ConversionStrategyType = "Webhook"
)

// CustomResourceConversion is spec.conversion.
type CustomResourceConversion struct {
	Strategy ConversionStrategyType `json:"strategy"`
	Webhook  *WebhookConversion     `json:"webhook,omitempty"`
}

// WebhookConversion configures a conversion webhook (carried, not
// served: orkit refuses the Webhook strategy).
type WebhookConversion struct {
	ClientConfig             *WebhookClientConfig `json:"clientConfig,omitempty"`
	ConversionReviewVersions []string             `json:"conversionReviewVersions"`
}

// WebhookClientConfig says how to reach a webhook.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// ServiceReference names the Service of a webhook.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// CustomResourceDefinitionVersion is one version of the resource.
type CustomResourceDefinitionVersion struct {
	// Name is the version ("v1", "v1beta1"); a DNS-1035 label.
	Name string `json:"name"`
	// Served says whether the version is served by the REST API.
	Served bool `json:"served"`
	// Storage marks the one version objects are stored in.
	Storage bool `json:"storage"`
	// Deprecated makes the API server warn on every request to the
	// version.
	Deprecated bool `json:"deprecated,omitempty"`
	// DeprecationWarning replaces the default warning (at most 256
	// printable characters).
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
	// Schema validates, prunes and defaults objects of the version.
	Schema *CustomResourceValidation `json:"schema,omitempty"`
	// Subresources are the status and scale subresources.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty"`
	// AdditionalPrinterColumns are the columns of the Table output
	// (kubectl get); the default is an Age column.
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	// SelectableFields are fields usable in field selectors.
	SelectableFields []SelectableField `json:"selectableFields,omitempty"`
}

// SelectableField is a field (by JSON path) usable in field selectors.
type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// CustomResourceColumnDefinition is one column of the Table output.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// CustomResourceDefinitionNames are the names of the resource.
type CustomResourceDefinitionNames struct {
	// Plural is the resource in REST paths ("crontabs").
	Plural string `json:"plural"`
	// Singular is the singular name (lower-case Kind by default).
	Singular string `json:"singular,omitempty"`
	// ShortNames are kubectl's abbreviations ("ct").
	ShortNames []string `json:"shortNames,omitempty"`
	// Kind is the kind of objects ("CronTab").
	Kind string `json:"kind"`
	// ListKind is the kind of lists (Kind + "List" by default).
	ListKind string `json:"listKind,omitempty"`
	// Categories group resources for kubectl ("all").
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceValidation is the schema of a version.
type CustomResourceValidation struct {
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources are the subresources of a version.
type CustomResourceSubresources struct {
	// Status, when set, serves /status: the main resource ignores status
	// changes and /status ignores everything else.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	// Scale, when set, serves /scale (kubectl scale, autoscalers).
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus enables the status subresource.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale maps the scale subresource onto the
// object: JSON paths (".spec.replicas") of the desired and observed
// replicas and of the label selector.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceDefinitionStatus is what the API server reports about a
// CRD.
type CustomResourceDefinitionStatus struct {
	// Conditions are Established, NamesAccepted, NonStructuralSchema,
	// Terminating and KubernetesAPIApprovalPolicyConformant.
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	// AcceptedNames are the names actually served (they may lag spec.names
	// or differ on a conflict).
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames"`
	// StoredVersions are every version objects may be stored in.
	StoredVersions []string `json:"storedVersions"`
}

// CustomResourceDefinitionConditionType names a condition of a CRD.
type CustomResourceDefinitionConditionType string

// The conditions of a CRD.
const (
	// Established: the resource is served.
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted: the names do not conflict with another resource.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// NonStructuralSchema: a schema is not structural (legacy CRDs only).
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	// Terminating: the CRD is being deleted with its objects.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
	// KubernetesAPIApprovalPolicyConformant: a *.k8s.io group is approved.
	KubernetesAPIApprovalPolicyConformant CustomResourceDefinitionConditionType = "KubernetesAPIApprovalPolicyConformant"
)

// CustomResourceDefinitionCondition is one condition of a CRD.
type CustomResourceDefinitionCondition struct {
	Type               CustomResourceDefinitionConditionType `json:"type"`
	Status             meta.ConditionStatus                  `json:"status"`
	ObservedGeneration int64                                 `json:"observedGeneration,omitempty"`
	LastTransitionTime meta.Time                             `json:"lastTransitionTime,omitzero"`
	Reason             string                                `json:"reason,omitempty"`
	Message            string                                `json:"message,omitempty"`
}

// JSONSchemaProps is one node of an OpenAPI v3 schema (see schema.JSONSchemaProps).
type JSONSchemaProps = schema.JSONSchemaProps

// JSON is an arbitrary JSON value in a schema (default, example, enum).
type JSON = schema.JSON

// JSONSchemaPropsOrBool is additionalProperties: a schema or a boolean.
type JSONSchemaPropsOrBool = schema.JSONSchemaPropsOrBool

// JSONSchemaPropsOrArray is items: a schema or a list of schemas.
type JSONSchemaPropsOrArray = schema.JSONSchemaPropsOrArray

// JSONSchemaPropsOrStringArray is one entry of dependencies.
type JSONSchemaPropsOrStringArray = schema.JSONSchemaPropsOrStringArray

// ValidationRule is one x-kubernetes-validations CEL rule.
type ValidationRule = schema.ValidationRule

// FieldValueErrorReason is the reason a failed CEL rule reports.
type FieldValueErrorReason = schema.FieldValueErrorReason
