// Package autoscaling holds the autoscaling group: the autoscaling/v1
// Scale kind (the body of the scale subresource of deployments,
// replicasets, statefulsets and replicationcontrollers, which the API
// server converts from and to the workload) and the HorizontalPodAutoscaler
// in its stored form, autoscaling/v2, with its autoscaling/v1 view
// (HorizontalPodAutoscalerV1, converted with ToV2 and FromV2), defaults
// and validation with Kubernetes' messages. Register adds the v2 kind to a
// scheme.
//
// Every type marshals to JSON exactly as Kubernetes' autoscaling/v1 and
// autoscaling/v2. Values are plain data with no internal synchronisation.
package autoscaling
