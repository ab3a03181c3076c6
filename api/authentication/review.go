package authentication

import "github.com/orkit/orkit/api/meta"

// GroupName is the API group of every kind in this package.
const GroupName = "authentication.k8s.io"

// Version is the API version of every kind in this package.
const Version = "v1"

// ExtraValue is one extra attribute of a user.
type ExtraValue []string

// UserInfo is who a token or request authenticated as.
type UserInfo struct {
	Username string                `json:"username,omitempty"`
	UID      string                `json:"uid,omitempty"`
	Groups   []string              `json:"groups,omitempty"`
	Extra    map[string]ExtraValue `json:"extra,omitempty"`
}

// TokenReview asks the API server to authenticate a bearer token (the
// webhook token authenticator's wire format).
type TokenReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            TokenReviewSpec   `json:"spec"`
	Status          TokenReviewStatus `json:"status,omitempty"`
}

// TokenReviewList is a list of TokenReviews (never served; the scheme
// requires every kind to have one).
type TokenReviewList = meta.List[TokenReview]

// TokenReviewSpec is the token to authenticate and the audiences it must be
// valid for (empty means the API server's own).
type TokenReviewSpec struct {
	Token     string   `json:"token,omitempty"`
	Audiences []string `json:"audiences,omitempty"`
}

// TokenReviewStatus is the answer: whether the token authenticated, as whom,
// for which audiences, or why not.
type TokenReviewStatus struct {
	Authenticated bool     `json:"authenticated,omitempty"`
	User          UserInfo `json:"user,omitempty"`
	Audiences     []string `json:"audiences,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// SelfSubjectReview asks who the requesting user is ("kubectl auth whoami").
type SelfSubjectReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Status          SelfSubjectReviewStatus `json:"status,omitempty"`
}

// SelfSubjectReviewList is a list of SelfSubjectReviews.
type SelfSubjectReviewList = meta.List[SelfSubjectReview]

// SelfSubjectReviewStatus carries the requesting user's attributes.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty"`
}
