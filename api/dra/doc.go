// Package dra holds the resource.k8s.io/v1 kinds of Dynamic Resource
// Allocation (DRA), as Kubernetes 1.37 serves them: DeviceClass (a
// cluster-scoped class of devices, chosen by CEL selectors), ResourceSlice
// (a driver's published pool of devices on a node or a set of nodes),
// ResourceClaim (a namespaced request for devices, with the allocation
// and the consumers the scheduler writes into its status),
// ResourceClaimTemplate (the blueprint from which a claim per pod is
// made) and DeviceTaintRule (a taint put on matching devices), with
// their defaulting, validation (kube-apiserver's rules and messages,
// device selectors compiled with CEL) and scheme registration.
//
// The package is named dra, not resource, because api/resource is the
// Quantity package. The kinds marshal to JSON exactly as Kubernetes'
// resource/v1. Everything here is plain data and pure functions: safe
// for concurrent use, with no goroutines of its own.
package dra
