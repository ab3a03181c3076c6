// Package networking holds the networking.k8s.io/v1 Ingress,
// IngressClass, NetworkPolicy, ServiceCIDR and IPAddress kinds, with
// their validation, defaults and scheme registration, as Kubernetes
// serves them: the routing rules that an ingress controller (a user's or
// a chart's) implements for HTTP traffic into the cluster, the rules of
// which traffic pods may receive and send, which orkit's netpol package
// enforces on real nodes, and the ranges Services' cluster IPs come from
// with the addresses allocated in them.
//
// The kinds marshal to JSON exactly as Kubernetes' networking/v1 for
// every field they carry. Values are plain data with no internal
// synchronisation.
package networking
