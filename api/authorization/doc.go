// Package authorization holds the authorization.k8s.io/v1 review kinds —
// SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview and
// SelfSubjectRulesReview — with their validation and scheme registration.
//
// Reviews are never stored: a client creates one and the API server answers
// with the same object, its status filled in by the authorizer. They are
// registered as create-only resources (see api.IsCreateOnly). Types marshal to
// JSON exactly as Kubernetes' authorization/v1 for every field they carry.
// Values are plain data with no internal synchronisation.
package authorization
