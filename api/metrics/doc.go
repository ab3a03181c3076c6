// Package metrics holds the resource Metrics API, metrics.k8s.io/v1beta1:
// NodeMetrics and PodMetrics, the CPU and memory usage a metrics server
// reports for `kubectl top` and the HorizontalPodAutoscaler. These kinds
// are not stored: a metrics server computes them from the kubelets'
// summaries and serves them through the API server's aggregation layer,
// so this package registers nothing in a scheme.
//
// Every type marshals to JSON exactly as Kubernetes' metrics.k8s.io/v1beta1.
// Values are plain data with no internal synchronisation.
package metrics
