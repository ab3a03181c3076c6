package podautoscaler

import "errors"

var (
	// ErrInvalidConfig: New was given no manager or a Config it cannot use.
	ErrInvalidConfig = errors.New("podautoscaler: invalid config")
	// ErrMissingRequest: a pod's container has no request for a resource
	// whose utilization is the target.
	ErrMissingRequest = errors.New("missing request")
	// ErrNoMetrics: the Metrics API returned no usable metrics for the
	// target's pods.
	ErrNoMetrics = errors.New("no metrics returned from resource metrics API")
	// ErrUnsupportedMetric: the autoscaler names a metric source this
	// controller does not read (custom and external metrics).
	ErrUnsupportedMetric = errors.New("unsupported metric source")
)
