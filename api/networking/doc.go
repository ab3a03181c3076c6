// Package networking holds the networking.k8s.io/v1 Ingress and
// IngressClass kinds, with their validation, defaults and scheme
// registration: the routing rules that an ingress controller (a user's
// or a chart's) implements for HTTP traffic into the cluster, as
// Kubernetes serves them.
//
// Both kinds marshal to JSON exactly as Kubernetes' networking/v1 for
// every field they carry. Values are plain data with no internal
// synchronisation.
package networking
