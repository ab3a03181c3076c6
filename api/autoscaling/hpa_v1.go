package autoscaling

import (
	"encoding/json"
	"slices"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// The annotations autoscaling/v1 objects carry what v2 holds and v1 has no
// field for, as Kubernetes' conversion names them.
const (
	AnnotationMetrics        = "autoscaling.alpha.kubernetes.io/metrics"
	AnnotationCurrentMetrics = "autoscaling.alpha.kubernetes.io/current-metrics"
	AnnotationConditions     = "autoscaling.alpha.kubernetes.io/conditions"
	AnnotationBehavior       = "autoscaling.alpha.kubernetes.io/behavior"
)

// HorizontalPodAutoscalerV1 is the autoscaling/v1 form of a
// HorizontalPodAutoscaler: one CPU utilization target. The API server
// stores v2 and converts (ToV2, FromV2); metrics other than CPU
// utilization travel in annotations, as in Kubernetes.
type HorizontalPodAutoscalerV1 struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            HorizontalPodAutoscalerSpecV1   `json:"spec,omitempty"`
	Status          HorizontalPodAutoscalerStatusV1 `json:"status,omitempty"`
}

// HorizontalPodAutoscalerListV1 is a list of v1 HorizontalPodAutoscalers.
type HorizontalPodAutoscalerListV1 = meta.List[HorizontalPodAutoscalerV1]

// HorizontalPodAutoscalerSpecV1 is the v1 spec.
type HorizontalPodAutoscalerSpecV1 struct {
	ScaleTargetRef                 CrossVersionObjectReference `json:"scaleTargetRef"`
	MinReplicas                    *int32                      `json:"minReplicas,omitempty"`
	MaxReplicas                    int32                       `json:"maxReplicas"`
	TargetCPUUtilizationPercentage *int32                      `json:"targetCPUUtilizationPercentage,omitempty"`
}

// HorizontalPodAutoscalerStatusV1 is the v1 status.
type HorizontalPodAutoscalerStatusV1 struct {
	ObservedGeneration              *int64     `json:"observedGeneration,omitempty"`
	LastScaleTime                   *meta.Time `json:"lastScaleTime,omitempty"`
	CurrentReplicas                 int32      `json:"currentReplicas"`
	DesiredReplicas                 int32      `json:"desiredReplicas"`
	CurrentCPUUtilizationPercentage *int32     `json:"currentCPUUtilizationPercentage,omitempty"`
}

// roundTripAnnotations are the annotations the conversion owns: dropped
// from a v2 object's annotations before FromV2 writes its own, and from
// the v2 result of ToV2.
var roundTripAnnotations = []string{AnnotationMetrics, AnnotationCurrentMetrics, AnnotationConditions, AnnotationBehavior}

// ToV2 converts a v1 autoscaler to v2 as Kubernetes does: the metrics in
// the metrics annotation (autoscaling/v1's MetricSpec form) come first,
// then the CPU target as a Resource metric; with neither, the CPU target
// is DefaultCPUUtilization. The current-metrics annotation, when present,
// replaces the current CPU utilization; the conditions and behavior
// annotations become fields. The annotations are dropped from the
// result; one that does not decode is ignored, where Kubernetes' conversion
// fails (the request gets an error). h is not changed.
func (h *HorizontalPodAutoscalerV1) ToV2() *HorizontalPodAutoscaler {
	h = meta.DeepCopy(h)
	out := &HorizontalPodAutoscaler{
		TypeMeta:   meta.TypeMeta{Kind: "HorizontalPodAutoscaler", APIVersion: GroupVersionV2().String()},
		ObjectMeta: h.ObjectMeta,
		Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: h.Spec.ScaleTargetRef,
			MinReplicas:    h.Spec.MinReplicas,
			MaxReplicas:    h.Spec.MaxReplicas,
		},
		Status: HorizontalPodAutoscalerStatus{
			ObservedGeneration: h.Status.ObservedGeneration,
			LastScaleTime:      h.Status.LastScaleTime,
			CurrentReplicas:    h.Status.CurrentReplicas,
			DesiredReplicas:    h.Status.DesiredReplicas,
		},
	}
	ann := h.Annotations
	var extra []v1MetricSpec
	if v, ok := ann[AnnotationMetrics]; ok && json.Unmarshal([]byte(v), &extra) == nil {
		for _, m := range extra {
			out.Spec.Metrics = append(out.Spec.Metrics, m.toV2())
		}
	}
	if t := h.Spec.TargetCPUUtilizationPercentage; t != nil {
		out.Spec.Metrics = append(out.Spec.Metrics, cpuUtilization(*t))
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []MetricSpec{cpuUtilization(DefaultCPUUtilization)}
	}
	if c := h.Status.CurrentCPUUtilizationPercentage; c != nil {
		out.Status.CurrentMetrics = []MetricStatus{{Type: ResourceMetricSourceType,
			Resource: &ResourceMetricStatus{Name: core.ResourceCPU, Current: MetricValueStatus{AverageUtilization: c}}}}
	}
	var cur []v1MetricStatus
	if v, ok := ann[AnnotationCurrentMetrics]; ok && json.Unmarshal([]byte(v), &cur) == nil {
		out.Status.CurrentMetrics = nil
		for _, m := range cur {
			out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, m.toV2())
		}
	}
	var b HorizontalPodAutoscalerBehavior
	if v, ok := ann[AnnotationBehavior]; ok && json.Unmarshal([]byte(v), &b) == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
		out.Spec.Behavior = &b
	}
	var conds []HorizontalPodAutoscalerCondition
	if v, ok := ann[AnnotationConditions]; ok && json.Unmarshal([]byte(v), &conds) == nil {
		out.Status.Conditions = conds
	}
	out.Annotations = withoutRoundTrip(out.Annotations)
	return out
}

// FromV2 converts a v2 autoscaler to v1 as Kubernetes does: the first CPU
// Resource metric gives the CPU target; every other metric (CPU
// utilization ones excepted) goes into the metrics annotation, every
// current metric into the current-metrics annotation (in autoscaling/v1's
// MetricSpec and MetricStatus forms), the conditions and the behavior
// into theirs (the behavior under Go field names, as Kubernetes writes
// its internal type). Round-trip annotations the v2 object carries
// itself are dropped first. h is not changed.
func FromV2(h *HorizontalPodAutoscaler) *HorizontalPodAutoscalerV1 {
	h = meta.DeepCopy(h)
	out := &HorizontalPodAutoscalerV1{
		TypeMeta:   meta.TypeMeta{Kind: "HorizontalPodAutoscaler", APIVersion: GroupVersionV1().String()},
		ObjectMeta: h.ObjectMeta,
		Spec: HorizontalPodAutoscalerSpecV1{
			ScaleTargetRef: h.Spec.ScaleTargetRef,
			MinReplicas:    h.Spec.MinReplicas,
			MaxReplicas:    h.Spec.MaxReplicas,
		},
		Status: HorizontalPodAutoscalerStatusV1{
			ObservedGeneration: h.Status.ObservedGeneration,
			LastScaleTime:      h.Status.LastScaleTime,
			CurrentReplicas:    h.Status.CurrentReplicas,
			DesiredReplicas:    h.Status.DesiredReplicas,
		},
	}
	out.Annotations = withoutRoundTrip(out.Annotations)
	for _, m := range h.Spec.Metrics {
		if m.Type == ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == core.ResourceCPU {
			out.Spec.TargetCPUUtilizationPercentage = m.Resource.Target.AverageUtilization
			break
		}
	}
	var extra []v1MetricSpec
	for _, m := range h.Spec.Metrics {
		if !isCPUUtilization(m) {
			extra = append(extra, metricSpecToV1(m))
		}
	}
	var cur []v1MetricStatus
	for _, m := range h.Status.CurrentMetrics {
		if m.Type == ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == core.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = m.Resource.Current.AverageUtilization
		}
		cur = append(cur, metricStatusToV1(m))
	}
	setJSONAnnotation(&out.ObjectMeta, AnnotationMetrics, extra, len(extra) > 0)
	setJSONAnnotation(&out.ObjectMeta, AnnotationCurrentMetrics, cur, len(cur) > 0)
	setJSONAnnotation(&out.ObjectMeta, AnnotationConditions, h.Status.Conditions, len(h.Status.Conditions) > 0)
	if h.Spec.Behavior != nil {
		setJSONAnnotation(&out.ObjectMeta, AnnotationBehavior, behaviorAnnotationOf(h.Spec.Behavior), true)
	}
	return out
}

// withoutRoundTrip returns a copy of annotations without the conversion's
// own, nil when nothing is left.
func withoutRoundTrip(annotations map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range annotations {
		if !slices.Contains(roundTripAnnotations, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func setJSONAnnotation(m *meta.ObjectMeta, key string, v any, set bool) {
	if !set {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[key] = string(b)
}

func cpuUtilization(pct int32) MetricSpec {
	return MetricSpec{Type: ResourceMetricSourceType, Resource: &ResourceMetricSource{
		Name: core.ResourceCPU, Target: MetricTarget{Type: UtilizationMetricType, AverageUtilization: &pct}}}
}

func isCPUUtilization(m MetricSpec) bool {
	return m.Type == ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == core.ResourceCPU &&
		m.Resource.Target.Type == UtilizationMetricType && m.Resource.Target.AverageUtilization != nil
}
