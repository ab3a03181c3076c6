package protobuf

// Field numbers in this file are data taken from k8s.io/api events/v1 and
// autoscaling/v2 generated.proto; the JSON names are the Go json tags.

// viewMessages covers events.k8s.io/v1 Event and autoscaling/v2
// HorizontalPodAutoscaler (what client-go's typed clients send for them).
func viewMessages() map[string]fields {
	return map[string]fields{
		"events.Event": {
			1: objectMeta(), 2: msg("eventTime", typeMicroTime), 3: msg("series", "events.EventSeries"),
			4: str("reportingController"), 5: str("reportingInstance"), 6: str("action"), 7: str("reason"),
			8: msg("regarding", "core.ObjectReference"), 9: msg("related", "core.ObjectReference"), 10: str("note"),
			11: str("type"), 12: msg("deprecatedSource", "core.EventSource"), 13: timeField("deprecatedFirstTimestamp"),
			14: timeField("deprecatedLastTimestamp"), 15: i32("deprecatedCount"),
		},
		"events.EventSeries": {1: i32p("count"), 2: msg("lastObservedTime", typeMicroTime)},
		"autoscaling2.HorizontalPodAutoscaler": {
			1: objectMeta(), 2: msg("spec", "autoscaling2.HorizontalPodAutoscalerSpec"),
			3: msg("status", "autoscaling2.HorizontalPodAutoscalerStatus"),
		},
		"autoscaling2.HorizontalPodAutoscalerSpec": {
			1: msg("scaleTargetRef", "autoscaling.CrossVersionObjectReference"), 2: i32p("minReplicas"), 3: i32p("maxReplicas"),
			4: msgs("metrics", "autoscaling2.MetricSpec"), 5: msg("behavior", "autoscaling2.HorizontalPodAutoscalerBehavior"),
		},
		"autoscaling2.HorizontalPodAutoscalerBehavior": {
			1: msg("scaleUp", "autoscaling2.HPAScalingRules"), 2: msg("scaleDown", "autoscaling2.HPAScalingRules"),
		},
		"autoscaling2.HPAScalingRules": {
			3: i32p("stabilizationWindowSeconds"), 1: str("selectPolicy"), 2: msgs("policies", "autoscaling2.HPAScalingPolicy"),
			4: quantity("tolerance"),
		},
		"autoscaling2.HPAScalingPolicy": {1: strp("type"), 2: i32p("value"), 3: i32p("periodSeconds")},
		"autoscaling2.MetricSpec": {
			1: strp("type"), 2: msg("object", "autoscaling2.ObjectMetricSource"), 3: msg("pods", "autoscaling2.PodsMetricSource"),
			4: msg("resource", "autoscaling2.ResourceMetricSource"), 7: msg("containerResource", "autoscaling2.ContainerResourceMetricSource"),
			5: msg("external", "autoscaling2.ExternalMetricSource"),
		},
		"autoscaling2.ObjectMetricSource": {
			1: msg("describedObject", "autoscaling.CrossVersionObjectReference"), 2: msg("target", "autoscaling2.MetricTarget"),
			3: msg("metric", "autoscaling2.MetricIdentifier"),
		},
		"autoscaling2.PodsMetricSource":     {1: msg("metric", "autoscaling2.MetricIdentifier"), 2: msg("target", "autoscaling2.MetricTarget")},
		"autoscaling2.ResourceMetricSource": {1: strp("name"), 2: msg("target", "autoscaling2.MetricTarget")},
		"autoscaling2.ContainerResourceMetricSource": {
			1: strp("name"), 2: msg("target", "autoscaling2.MetricTarget"), 3: strp("container"),
		},
		"autoscaling2.ExternalMetricSource": {1: msg("metric", "autoscaling2.MetricIdentifier"), 2: msg("target", "autoscaling2.MetricTarget")},
		"autoscaling2.MetricIdentifier":     {1: strp("name"), 2: labelSelector("selector")},
		"autoscaling2.MetricTarget": {
			1: strp("type"), 2: quantity("value"), 3: quantity("averageValue"), 4: i32("averageUtilization"),
		},
		"autoscaling2.HorizontalPodAutoscalerStatus": {
			1: i64("observedGeneration"), 2: timeField("lastScaleTime"), 3: i32("currentReplicas"), 4: i32p("desiredReplicas"),
			5: msgs("currentMetrics", "autoscaling2.MetricStatus"), 6: msgs("conditions", "autoscaling2.HorizontalPodAutoscalerCondition"),
		},
		"autoscaling2.MetricStatus": {
			1: strp("type"), 2: msg("object", "autoscaling2.ObjectMetricStatus"), 3: msg("pods", "autoscaling2.PodsMetricStatus"),
			4: msg("resource", "autoscaling2.ResourceMetricStatus"), 7: msg("containerResource", "autoscaling2.ContainerResourceMetricStatus"),
			5: msg("external", "autoscaling2.ExternalMetricStatus"),
		},
		"autoscaling2.ObjectMetricStatus": {
			1: msg("metric", "autoscaling2.MetricIdentifier"), 2: msg("current", "autoscaling2.MetricValueStatus"),
			3: msg("describedObject", "autoscaling.CrossVersionObjectReference"),
		},
		"autoscaling2.PodsMetricStatus":     {1: msg("metric", "autoscaling2.MetricIdentifier"), 2: msg("current", "autoscaling2.MetricValueStatus")},
		"autoscaling2.ResourceMetricStatus": {1: strp("name"), 2: msg("current", "autoscaling2.MetricValueStatus")},
		"autoscaling2.ContainerResourceMetricStatus": {
			1: strp("name"), 2: msg("current", "autoscaling2.MetricValueStatus"), 3: strp("container"),
		},
		"autoscaling2.ExternalMetricStatus": {1: msg("metric", "autoscaling2.MetricIdentifier"), 2: msg("current", "autoscaling2.MetricValueStatus")},
		"autoscaling2.MetricValueStatus":    {1: quantity("value"), 2: quantity("averageValue"), 3: i32("averageUtilization")},
		"autoscaling2.HorizontalPodAutoscalerCondition": {
			1: strp("type"), 2: strp("status"), 3: timeField("lastTransitionTime"), 4: str("reason"), 5: str("message"),
			6: i64("observedGeneration"),
		},
	}
}
