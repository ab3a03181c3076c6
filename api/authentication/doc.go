// Package authentication holds the authentication.k8s.io/v1 kinds
// TokenReview and SelfSubjectReview, and UserInfo, with their validation and
// scheme registration.
//
// Both kinds are never stored: a client creates one and the API server
// answers with its status filled in. They are registered as create-only
// cluster-scoped resources (see api.IsCreateOnly). Types marshal to JSON
// exactly as Kubernetes' authentication/v1 for every field they carry. Values
// are plain data with no internal synchronisation.
package authentication
