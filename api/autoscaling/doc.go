// Package autoscaling holds the autoscaling/v1 Scale kind: the body of the
// scale subresource of deployments, replicasets and statefulsets. Scale is
// not a resource of its own, so this package registers nothing in a scheme;
// the API server converts between a workload and its Scale.
//
// Scale marshals to JSON exactly as Kubernetes' autoscaling/v1. Values are
// plain data with no internal synchronisation.
package autoscaling
