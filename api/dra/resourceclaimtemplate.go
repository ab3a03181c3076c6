package dra

import "github.com/orkit/orkit/api/meta"

// ResourceClaimTemplate is the blueprint of the claims made for pods
// that name it in spec.resourceClaims. It is namespaced; its spec is
// immutable; it has no generation.
type ResourceClaimTemplate struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is copied into each claim made from the template.
	Spec ResourceClaimTemplateSpec `json:"spec"`
}

// ResourceClaimTemplateSpec is the metadata and spec of the claims made
// from a template.
type ResourceClaimTemplateSpec struct {
	// ObjectMeta is copied into each claim (labels, annotations).
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Spec is each claim's spec.
	Spec ResourceClaimSpec `json:"spec"`
}

// ResourceClaimTemplateList is a list of ResourceClaimTemplates.
type ResourceClaimTemplateList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []ResourceClaimTemplate `json:"items"`
}

// GetListMeta returns the list's metadata.
func (l *ResourceClaimTemplateList) GetListMeta() *meta.ListMeta { return &l.ListMeta }
