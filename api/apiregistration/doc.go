// Package apiregistration holds apiregistration.k8s.io/v1 APIService: the
// registration of a group/version served by another server (an
// extension API server such as a metrics server) behind a Service, which
// the API server proxies to (API aggregation), with its validation
// (Kubernetes' messages) and Register for a scheme.
//
// Every type marshals to JSON exactly as Kubernetes'; values are plain
// data with no internal synchronisation.
package apiregistration
