package autoscaling

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// TestFromV2Annotations: the annotations carry what v1 has no field for in
// the forms Kubernetes writes (autoscaling/v1 MetricSpec and MetricStatus,
// the behavior under Go field names), and the CPU target and current
// utilization come from the first CPU metrics.
func TestFromV2Annotations(t *testing.T) {
	sel := MaxChangePolicySelect
	cases := []struct {
		name    string
		v2      HorizontalPodAutoscaler
		wantCPU *int32
		wantCur *int32
		want    map[string]string
	}{
		{
			name:    "cpu only",
			v2:      HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{Metrics: []MetricSpec{cpuUtilization(50)}}},
			wantCPU: i32(50),
		},
		{
			name: "pods and external metrics",
			v2: HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{Metrics: []MetricSpec{
				{Type: PodsMetricSourceType, Pods: &PodsMetricSource{Metric: MetricIdentifier{Name: "qps"}, Target: MetricTarget{Type: AverageValueMetricType, AverageValue: qty("10")}}},
				cpuUtilization(70),
				{Type: ExternalMetricSourceType, External: &ExternalMetricSource{Metric: MetricIdentifier{Name: "queue"}, Target: MetricTarget{Type: ValueMetricType, Value: qty("30")}}},
			}}},
			wantCPU: i32(70),
			want: map[string]string{AnnotationMetrics: `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}},` +
				`{"type":"External","external":{"metricName":"queue","targetValue":"30"}}]`},
		},
		{
			name: "memory value and status",
			v2: HorizontalPodAutoscaler{
				Spec: HorizontalPodAutoscalerSpec{Metrics: []MetricSpec{{Type: ResourceMetricSourceType, Resource: &ResourceMetricSource{
					Name: core.ResourceMemory, Target: MetricTarget{Type: AverageValueMetricType, AverageValue: qty("100Mi")}}}}},
				Status: HorizontalPodAutoscalerStatus{CurrentMetrics: []MetricStatus{{Type: ResourceMetricSourceType, Resource: &ResourceMetricStatus{
					Name: core.ResourceCPU, Current: MetricValueStatus{AverageValue: qty("120m"), AverageUtilization: i32(60)}}}}},
			},
			wantCur: i32(60),
			want: map[string]string{
				AnnotationMetrics:        `[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]`,
				AnnotationCurrentMetrics: `[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":60,"currentAverageValue":"120m"}}]`,
			},
		},
		{
			name: "behavior and conditions",
			v2: HorizontalPodAutoscaler{
				Spec: HorizontalPodAutoscalerSpec{Metrics: []MetricSpec{cpuUtilization(50)}, Behavior: &HorizontalPodAutoscalerBehavior{
					ScaleUp: &HPAScalingRules{StabilizationWindowSeconds: i32(0), SelectPolicy: &sel, Policies: []HPAScalingPolicy{{Type: PodsScalingPolicy, Value: 4, PeriodSeconds: 15}}}}},
				Status: HorizontalPodAutoscalerStatus{Conditions: []HorizontalPodAutoscalerCondition{{Type: AbleToScale, Status: meta.ConditionTrue, Reason: "R"}}},
			},
			wantCPU: i32(50),
			want: map[string]string{
				AnnotationBehavior:   `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},"ScaleDown":null}`,
				AnnotationConditions: `[{"type":"AbleToScale","status":"True","reason":"R"}]`,
			},
		},
		{
			name: "stale round-trip annotations on the v2 object are dropped",
			v2: HorizontalPodAutoscaler{ObjectMeta: meta.ObjectMeta{Annotations: map[string]string{AnnotationMetrics: "garbage", "keep": "x"}},
				Spec: HorizontalPodAutoscalerSpec{Metrics: []MetricSpec{cpuUtilization(50)}}},
			wantCPU: i32(50),
			want:    map[string]string{"keep": "x"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v1 := FromV2(&tc.v2)
			assert.Equal(t, tc.wantCPU, v1.Spec.TargetCPUUtilizationPercentage)
			assert.Equal(t, tc.wantCur, v1.Status.CurrentCPUUtilizationPercentage)
			require.Len(t, v1.Annotations, len(tc.want))
			for k, want := range tc.want {
				if k == "keep" {
					assert.Equal(t, want, v1.Annotations[k])
					continue
				}
				assert.JSONEq(t, want, v1.Annotations[k], k)
			}
		})
	}
}

// TestToV2FromAnnotations reads annotations as Kubernetes writes them
// (including the behavior's Go field names), defaults the CPU target, and
// ignores annotations that do not decode.
func TestToV2FromAnnotations(t *testing.T) {
	cases := []struct {
		name        string
		v1          HorizontalPodAutoscalerV1
		wantMetrics []MetricSpec
		check       func(t *testing.T, h *HorizontalPodAutoscaler)
	}{
		{
			name:        "no target: 80% CPU",
			wantMetrics: []MetricSpec{cpuUtilization(80)},
		},
		{
			name: "annotation metrics first, then the CPU target",
			v1: HorizontalPodAutoscalerV1{ObjectMeta: meta.ObjectMeta{Annotations: map[string]string{
				AnnotationMetrics: `[{"type":"Object","object":{"target":{"kind":"Ingress","name":"main"},"metricName":"hits","targetValue":"2k"}}]`}},
				Spec: HorizontalPodAutoscalerSpecV1{TargetCPUUtilizationPercentage: i32(40)}},
			wantMetrics: []MetricSpec{
				{Type: ObjectMetricSourceType, Object: &ObjectMetricSource{DescribedObject: CrossVersionObjectReference{Kind: "Ingress", Name: "main"},
					Metric: MetricIdentifier{Name: "hits"}, Target: MetricTarget{Type: ValueMetricType, Value: qty("2k")}}},
				cpuUtilization(40),
			},
		},
		{
			name: "behavior in Go field names, current metrics replace the CPU figure",
			v1: HorizontalPodAutoscalerV1{ObjectMeta: meta.ObjectMeta{Annotations: map[string]string{
				AnnotationBehavior:       `{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":null,"Policies":null}}`,
				AnnotationCurrentMetrics: `[{"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"7"}}]`,
				"other":                  "kept"}},
				Spec:   HorizontalPodAutoscalerSpecV1{TargetCPUUtilizationPercentage: i32(40)},
				Status: HorizontalPodAutoscalerStatusV1{CurrentCPUUtilizationPercentage: i32(33)}},
			wantMetrics: []MetricSpec{cpuUtilization(40)},
			check: func(t *testing.T, h *HorizontalPodAutoscaler) {
				require.NotNil(t, h.Spec.Behavior)
				assert.Equal(t, int32(60), *h.Spec.Behavior.ScaleDown.StabilizationWindowSeconds)
				require.Len(t, h.Status.CurrentMetrics, 1)
				assert.Equal(t, "qps", h.Status.CurrentMetrics[0].Pods.Metric.Name)
				assert.Equal(t, map[string]string{"other": "kept"}, h.Annotations)
			},
		},
		{
			name: "undecodable annotations are ignored and dropped",
			v1: HorizontalPodAutoscalerV1{ObjectMeta: meta.ObjectMeta{Annotations: map[string]string{
				AnnotationMetrics: "{", AnnotationConditions: "x", AnnotationBehavior: "[]"}},
				Spec: HorizontalPodAutoscalerSpecV1{TargetCPUUtilizationPercentage: i32(40)}},
			wantMetrics: []MetricSpec{cpuUtilization(40)},
			check: func(t *testing.T, h *HorizontalPodAutoscaler) {
				assert.Nil(t, h.Spec.Behavior)
				assert.Nil(t, h.Annotations)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.v1.ToV2()
			assert.Equal(t, tc.wantMetrics, h.Spec.Metrics)
			if tc.check != nil {
				tc.check(t, h)
			}
		})
	}
}

// TestHPARoundTripV2V1V2: every v2 field survives v2 → v1 → v2 (the CPU
// target moves after the other metrics, as in Kubernetes).
func TestHPARoundTripV2V1V2(t *testing.T) {
	var h HorizontalPodAutoscaler
	require.NoError(t, json.Unmarshal([]byte(hpaDoc), &h))
	h.Spec.Behavior = &HorizontalPodAutoscalerBehavior{ScaleDown: &HPAScalingRules{StabilizationWindowSeconds: i32(30)}}
	back := FromV2(&h).ToV2()
	assert.Equal(t, h.Spec, back.Spec)
	assert.Equal(t, h.Status, back.Status)
}
