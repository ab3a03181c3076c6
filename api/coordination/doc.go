// Package coordination holds the coordination.k8s.io/v1 Lease kind, used for
// node heartbeats and leader election, with its validation and scheme
// registration.
//
// Lease marshals to JSON exactly as Kubernetes' coordination/v1 for every
// field it carries. Values are plain data with no internal synchronisation.
package coordination
