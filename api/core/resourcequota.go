package core

import "github.com/orkit/orkit/api/meta"

// ResourceQuota caps the total resources used in a namespace.
type ResourceQuota struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            ResourceQuotaSpec   `json:"spec,omitempty"`
	Status          ResourceQuotaStatus `json:"status,omitempty"`
}

// ResourceQuotaList is a list of resource quotas.
type ResourceQuotaList = meta.List[ResourceQuota]

// ResourceQuotaScope restricts which objects a quota counts.
type ResourceQuotaScope string

// The quota scopes.
const (
	ResourceQuotaScopeTerminating               ResourceQuotaScope = "Terminating"
	ResourceQuotaScopeNotTerminating            ResourceQuotaScope = "NotTerminating"
	ResourceQuotaScopeBestEffort                ResourceQuotaScope = "BestEffort"
	ResourceQuotaScopeNotBestEffort             ResourceQuotaScope = "NotBestEffort"
	ResourceQuotaScopePriorityClass             ResourceQuotaScope = "PriorityClass"
	ResourceQuotaScopeCrossNamespacePodAffinity ResourceQuotaScope = "CrossNamespacePodAffinity"
	ResourceQuotaScopeVolumeAttributesClass     ResourceQuotaScope = "VolumeAttributesClass"
)

// ResourceQuotaSpec is the desired state of a quota.
type ResourceQuotaSpec struct {
	Hard          ResourceList         `json:"hard,omitempty"`
	Scopes        []ResourceQuotaScope `json:"scopes,omitempty"`
	ScopeSelector *ScopeSelector       `json:"scopeSelector,omitempty"`
}

// ScopeSelector selects scopes by expression.
type ScopeSelector struct {
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty"`
}

// ScopedResourceSelectorRequirement is one scope expression.
type ScopedResourceSelectorRequirement struct {
	ScopeName ResourceQuotaScope `json:"scopeName"`
	Operator  string             `json:"operator"`
	Values    []string           `json:"values,omitempty"`
}

// ResourceQuotaStatus is the enforced hard limits and the current usage.
type ResourceQuotaStatus struct {
	Hard ResourceList `json:"hard,omitempty"`
	Used ResourceList `json:"used,omitempty"`
}
