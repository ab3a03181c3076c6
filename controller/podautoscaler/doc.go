// Package podautoscaler is the horizontal pod autoscaler controller: it
// sets the replicas of a workload's scale subresource from the resource
// metrics of its pods, as kube-controller-manager's HPA controller does.
//
//	HorizontalPodAutoscaler ──▶ queue ──▶ Reconcile(ns/name), again every SyncPeriod
//	    target's scale (GET …/scale) ──▶ selector, current replicas
//	    bounds: 0 disables; above max / below min ──▶ clamp
//	    MetricsClient.PodMetrics(ns, selector) ──▶ ReplicasForResource per metric
//	        (usage ratio against the target, tolerance, missing and unready pods)
//	    largest proposal ──▶ stabilize (windows) ──▶ limit (min/max, policies)
//	    PUT …/scale when it changes ──▶ status: replicas, currentMetrics,
//	        conditions AbleToScale, ScalingActive, ScalingLimited; Events
//
// The arithmetic is in pure functions (ReplicasForResource, the history's
// stabilize and limit) tested without a cluster. MetricsClient is the seam
// to the metrics: APIMetrics reads metrics.k8s.io/v1beta1 through the API
// server. Resource and ContainerResource metrics (CPU, memory,
// utilization or average value) are supported; Pods, Object and External
// metrics need a custom metrics API and make the autoscaler report
// ScalingActive=False.
package podautoscaler
