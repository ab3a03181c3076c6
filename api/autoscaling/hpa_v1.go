package autoscaling

import (
	"encoding/json"

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

// ToV2 converts a v1 autoscaler to v2: the CPU target becomes a Resource
// metric, and the annotations Kubernetes' conversion writes (metrics,
// current metrics, conditions, behavior) come back as fields. Annotations
// that do not decode are ignored, as Kubernetes does.
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
	ann := out.Annotations
	if t := h.Spec.TargetCPUUtilizationPercentage; t != nil {
		out.Spec.Metrics = append(out.Spec.Metrics, cpuUtilization(*t))
	}
	var extra []MetricSpec
	if json.Unmarshal([]byte(ann[AnnotationMetrics]), &extra) == nil {
		out.Spec.Metrics = append(out.Spec.Metrics, extra...)
	}
	var b HorizontalPodAutoscalerBehavior
	if json.Unmarshal([]byte(ann[AnnotationBehavior]), &b) == nil {
		out.Spec.Behavior = &b
	}
	if c := h.Status.CurrentCPUUtilizationPercentage; c != nil {
		out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, MetricStatus{Type: ResourceMetricSourceType,
			Resource: &ResourceMetricStatus{Name: core.ResourceCPU, Current: MetricValueStatus{AverageUtilization: c}}})
	}
	var cur []MetricStatus
	if json.Unmarshal([]byte(ann[AnnotationCurrentMetrics]), &cur) == nil {
		out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, cur...)
	}
	var conds []HorizontalPodAutoscalerCondition
	if json.Unmarshal([]byte(ann[AnnotationConditions]), &conds) == nil {
		out.Status.Conditions = conds
	}
	for _, k := range []string{AnnotationMetrics, AnnotationCurrentMetrics, AnnotationConditions, AnnotationBehavior} {
		delete(out.Annotations, k)
	}
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	return out
}

// FromV2 converts a v2 autoscaler to v1: the first CPU utilization metric
// becomes the CPU target, and everything else goes into annotations.
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
	var extra []MetricSpec
	for _, m := range h.Spec.Metrics {
		if out.Spec.TargetCPUUtilizationPercentage == nil && isCPUUtilization(m) {
			out.Spec.TargetCPUUtilizationPercentage = m.Resource.Target.AverageUtilization
			continue
		}
		extra = append(extra, m)
	}
	var cur []MetricStatus
	for _, m := range h.Status.CurrentMetrics {
		if out.Status.CurrentCPUUtilizationPercentage == nil && m.Type == ResourceMetricSourceType && m.Resource != nil &&
			m.Resource.Name == core.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = m.Resource.Current.AverageUtilization
			continue
		}
		cur = append(cur, m)
	}
	setJSONAnnotation(&out.ObjectMeta, AnnotationMetrics, extra, len(extra) > 0)
	setJSONAnnotation(&out.ObjectMeta, AnnotationCurrentMetrics, cur, len(cur) > 0)
	setJSONAnnotation(&out.ObjectMeta, AnnotationConditions, h.Status.Conditions, len(h.Status.Conditions) > 0)
	setJSONAnnotation(&out.ObjectMeta, AnnotationBehavior, h.Spec.Behavior, h.Spec.Behavior != nil)
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
