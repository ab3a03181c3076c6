// Package discovery holds the discovery.k8s.io/v1 EndpointSlice kind: the
// network endpoints behind a Service, in slices of at most 1,000 endpoints
// that share an address type and a port list, with its validation and
// scheme registration. The EndpointSlice controller (controller/endpointslice)
// writes them; the service proxy and the cluster DNS server read them, as
// kube-proxy and CoreDNS do.
//
// EndpointSlice marshals to JSON exactly as Kubernetes' discovery/v1 for
// every field it carries. Values are plain data with no internal
// synchronisation.
package discovery
