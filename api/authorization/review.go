package authorization

import "github.com/orkit/orkit/api/meta"

// GroupName is the API group of every kind in this package.
const GroupName = "authorization.k8s.io"

// Version is the API version of every kind in this package.
const Version = "v1"

// ResourceAttributes describe a resource request to authorize. Empty strings
// mean "all" for namespace and name.
type ResourceAttributes struct {
	Namespace   string `json:"namespace,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Group       string `json:"group,omitempty"`
	Version     string `json:"version,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
	// FieldSelector and LabelSelector are carried unchanged (Kubernetes
	// 1.31+ selector-aware authorization); orkit does not interpret them.
	FieldSelector meta.RawJSON `json:"fieldSelector,omitempty"`
	LabelSelector meta.RawJSON `json:"labelSelector,omitempty"`
}

// NonResourceAttributes describe a request for a non-resource path.
type NonResourceAttributes struct {
	Path string `json:"path,omitempty"`
	Verb string `json:"verb,omitempty"`
}

// ExtraValue is one extra attribute of a user.
type ExtraValue []string

// SubjectAccessReviewSpec is the request to authorize and the user making
// it. Exactly one of ResourceAttributes and NonResourceAttributes is set.
type SubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
	User                  string                 `json:"user,omitempty"`
	Groups                []string               `json:"groups,omitempty"`
	Extra                 map[string]ExtraValue  `json:"extra,omitempty"`
	UID                   string                 `json:"uid,omitempty"`
}

// SelfSubjectAccessReviewSpec is the request to authorize for the user
// making the review.
type SelfSubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

// SubjectAccessReviewStatus is the authorizer's answer. Denied is true only
// when an authorizer denied outright (no later authorizer could allow).
type SubjectAccessReviewStatus struct {
	Allowed         bool   `json:"allowed"`
	Denied          bool   `json:"denied,omitempty"`
	Reason          string `json:"reason,omitempty"`
	EvaluationError string `json:"evaluationError,omitempty"`
}

// SubjectAccessReview asks whether any user may perform a request.
// Cluster-scoped; its metadata must be empty.
type SubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            SubjectAccessReviewSpec   `json:"spec"`
	Status          SubjectAccessReviewStatus `json:"status,omitempty"`
}

// SubjectAccessReviewList is a list of SubjectAccessReviews (never served;
// the scheme requires every kind to have one).
type SubjectAccessReviewList = meta.List[SubjectAccessReview]

// SelfSubjectAccessReview asks whether the requesting user may perform a
// request ("kubectl auth can-i"). Cluster-scoped.
type SelfSubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            SelfSubjectAccessReviewSpec `json:"spec"`
	Status          SubjectAccessReviewStatus   `json:"status,omitempty"`
}

// SelfSubjectAccessReviewList is a list of SelfSubjectAccessReviews.
type SelfSubjectAccessReviewList = meta.List[SelfSubjectAccessReview]

// LocalSubjectAccessReview is a SubjectAccessReview limited to the namespace
// it is created in, so namespace admins may be granted it. Namespaced.
type LocalSubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            SubjectAccessReviewSpec   `json:"spec"`
	Status          SubjectAccessReviewStatus `json:"status,omitempty"`
}

// LocalSubjectAccessReviewList is a list of LocalSubjectAccessReviews.
type LocalSubjectAccessReviewList = meta.List[LocalSubjectAccessReview]

// SelfSubjectRulesReview asks for the rules the requesting user holds in a
// namespace. Cluster-scoped.
type SelfSubjectRulesReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            SelfSubjectRulesReviewSpec `json:"spec"`
	Status          SubjectRulesReviewStatus   `json:"status,omitempty"`
}

// SelfSubjectRulesReviewList is a list of SelfSubjectRulesReviews.
type SelfSubjectRulesReviewList = meta.List[SelfSubjectRulesReview]

// SelfSubjectRulesReviewSpec names the namespace to evaluate rules in.
type SelfSubjectRulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty"`
}

// SubjectRulesReviewStatus lists the rules a user holds. Incomplete is true
// when an authorizer cannot enumerate its rules (webhook, for instance).
type SubjectRulesReviewStatus struct {
	ResourceRules    []ResourceRule    `json:"resourceRules"`
	NonResourceRules []NonResourceRule `json:"nonResourceRules"`
	Incomplete       bool              `json:"incomplete"`
	EvaluationError  string            `json:"evaluationError,omitempty"`
}

// ResourceRule is a resource grant in a rules review.
type ResourceRule struct {
	Verbs         []string `json:"verbs"`
	APIGroups     []string `json:"apiGroups,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// NonResourceRule is a non-resource grant in a rules review.
type NonResourceRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}
