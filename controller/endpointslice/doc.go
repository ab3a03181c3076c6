// Package endpointslice holds the two controllers that keep
// discovery.k8s.io/v1 EndpointSlices, as Kubernetes' do:
//
//   - the EndpointSlice controller (New): for every Service with a
//     selector, slices listing the selected pods that have an IP and are
//     not terminal, ready, serving and terminating as Kubernetes reports
//     them, grouped by address family and resolved port list, at most
//     Config.MaxEndpointsPerSlice endpoints each;
//
//   - the mirroring controller (NewMirroring): for every Service without a
//     selector, slices copied from the Endpoints object a user (or another
//     tool) wrote for it, unless it carries endpointslice.kubernetes.io/skip-mirror.
//
//     Service/Pod/EndpointSlice event ──▶ queue ──▶ Reconcile(ns/name)
//     desired slices (address type, ports, sorted endpoints, chunked)
//     matched against the slices labelled kubernetes.io/service-name and
//     managed by this controller: unchanged ones left alone, changed
//     ones updated, missing ones created, extra ones deleted
//
// Each controller owns only the slices carrying its own
// endpointslice.kubernetes.io/managed-by value, so the two (and any other
// controller) never fight over a slice. The service proxy and the cluster
// DNS server read the slices (proxy.Cache).
package endpointslice
