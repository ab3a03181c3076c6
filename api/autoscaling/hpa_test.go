package autoscaling

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

func i32(v int32) *int32 { return &v }

func qty(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

// As kube-apiserver returns a v2 autoscaler made by `kubectl autoscale`.
const hpaDoc = `{"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2","metadata":{"name":"web","namespace":"default"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":5,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]},"status":{"currentReplicas":2,"desiredReplicas":3,"currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageValue":"120m","averageUtilization":60}}}],"conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T10:00:00Z","reason":"SucceededRescale","message":"the HPA controller was able to update the target scale to 3"}]}}`

func TestHPAJSON(t *testing.T) {
	var h HorizontalPodAutoscaler
	require.NoError(t, json.Unmarshal([]byte(hpaDoc), &h))
	assert.Equal(t, int32(50), *h.Spec.Metrics[0].Resource.Target.AverageUtilization)
	out, err := json.Marshal(&h)
	require.NoError(t, err)
	assert.JSONEq(t, hpaDoc, string(out))
}

func TestHPAConversion(t *testing.T) {
	v1 := &HorizontalPodAutoscalerV1{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{"keep": "me"}},
		Spec: HorizontalPodAutoscalerSpecV1{ScaleTargetRef: CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas: i32(1), MaxReplicas: 5, TargetCPUUtilizationPercentage: i32(50)},
	}
	v2 := v1.ToV2()
	assert.Equal(t, "autoscaling/v2", v2.APIVersion)
	require.Len(t, v2.Spec.Metrics, 1)
	assert.Equal(t, core.ResourceCPU, v2.Spec.Metrics[0].Resource.Name)
	assert.Equal(t, int32(50), *v2.Spec.Metrics[0].Resource.Target.AverageUtilization)

	// v2-only fields survive a trip through v1 in annotations.
	v2.Spec.Metrics = append(v2.Spec.Metrics, MetricSpec{Type: ResourceMetricSourceType, Resource: &ResourceMetricSource{
		Name: core.ResourceMemory, Target: MetricTarget{Type: AverageValueMetricType, AverageValue: qty("100Mi")}}})
	v2.Spec.Behavior = &HorizontalPodAutoscalerBehavior{ScaleDown: &HPAScalingRules{StabilizationWindowSeconds: i32(60)}}
	v2.Status.Conditions = []HorizontalPodAutoscalerCondition{{Type: AbleToScale, Status: meta.ConditionTrue}}
	back := FromV2(v2)
	assert.Equal(t, int32(50), *back.Spec.TargetCPUUtilizationPercentage)
	assert.Contains(t, back.Annotations[AnnotationMetrics], "100Mi")
	again := back.ToV2()
	// As in Kubernetes, the CPU target comes back after the other metrics.
	assert.Equal(t, []MetricSpec{v2.Spec.Metrics[1], v2.Spec.Metrics[0]}, again.Spec.Metrics)
	assert.Equal(t, v2.Spec.Behavior, again.Spec.Behavior)
	assert.Equal(t, v2.Status.Conditions, again.Status.Conditions)
	assert.Equal(t, map[string]string{"keep": "me"}, again.Annotations)
}

func TestDefaultHPA(t *testing.T) {
	h := &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 3,
		Behavior: &HorizontalPodAutoscalerBehavior{ScaleDown: &HPAScalingRules{StabilizationWindowSeconds: i32(60)}}}}
	DefaultHorizontalPodAutoscaler(h)
	assert.Equal(t, int32(1), *h.Spec.MinReplicas)
	assert.Equal(t, []MetricSpec{cpuUtilization(80)}, h.Spec.Metrics)
	assert.Equal(t, DefaultScaleUpRules(), h.Spec.Behavior.ScaleUp)
	assert.Equal(t, int32(60), *h.Spec.Behavior.ScaleDown.StabilizationWindowSeconds)
	assert.Equal(t, DefaultScaleDownRules().Policies, h.Spec.Behavior.ScaleDown.Policies)
}

func validHPA() *HorizontalPodAutoscaler {
	h := &HorizontalPodAutoscaler{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: HorizontalPodAutoscalerSpec{ScaleTargetRef: CrossVersionObjectReference{Kind: "Deployment", Name: "web"},
			MinReplicas: i32(1), MaxReplicas: 5, Metrics: []MetricSpec{cpuUtilization(50)}},
	}
	return h
}

func TestValidateHPA(t *testing.T) {
	sel := ScalingPolicySelect("Sometimes")
	tests := []struct {
		name   string
		mutate func(h *HorizontalPodAutoscaler)
		want   []string
	}{
		{"ok", func(*HorizontalPodAutoscaler) {}, nil},
		{"bounds", func(h *HorizontalPodAutoscaler) { h.Spec.MinReplicas, h.Spec.MaxReplicas = i32(0), 0 }, []string{
			"spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
			"spec.maxReplicas: Invalid value: 0: must be greater than 0",
		}},
		{"min above max", func(h *HorizontalPodAutoscaler) { h.Spec.MinReplicas = i32(6) }, []string{
			"spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`",
		}},
		{"target ref", func(h *HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef = CrossVersionObjectReference{Name: "a/b"} }, []string{
			"spec.scaleTargetRef.kind: Required value",
			`spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`,
		}},
		{"no type", func(h *HorizontalPodAutoscaler) { h.Spec.Metrics[0].Type = "" }, []string{
			"spec.metrics[0].type: Required value: must specify a metric source type",
		}},
		{"unknown type", func(h *HorizontalPodAutoscaler) { h.Spec.Metrics[0].Type = "Bogus" }, []string{
			`spec.metrics[0].type: Unsupported value: "Bogus": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"`,
		}},
		{"conflicting sources", func(h *HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Pods = &PodsMetricSource{Metric: MetricIdentifier{Name: "rps"}, Target: MetricTarget{Type: AverageValueMetricType, AverageValue: qty("1")}}
		}, []string{"spec.metrics[0].pods: Forbidden: must populate the given metric source only"}},
		{"missing source", func(h *HorizontalPodAutoscaler) { h.Spec.Metrics[0].Type = ExternalMetricSourceType }, []string{
			"spec.metrics[0].external: Required value: must populate information for the given metric source",
		}},
		{"resource target", func(h *HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Resource.Target = MetricTarget{Type: "Most", AverageUtilization: i32(0), AverageValue: qty("-1")}
		}, []string{
			`spec.metrics[0].resource.target.type: Invalid value: "Most": must be either Utilization, Value, or AverageValue`,
			`spec.metrics[0].resource.target.averageValue: Invalid value: "-1": must be positive`,
			"spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
			"spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization",
		}},
		{"no target", func(h *HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Resource.Target = MetricTarget{Type: UtilizationMetricType}
		}, []string{
			"spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization",
		}},
		{"behavior", func(h *HorizontalPodAutoscaler) {
			h.Spec.Behavior = &HorizontalPodAutoscalerBehavior{
				ScaleUp:   &HPAScalingRules{StabilizationWindowSeconds: i32(3601), SelectPolicy: &sel},
				ScaleDown: &HPAScalingRules{StabilizationWindowSeconds: i32(-1), Policies: []HPAScalingPolicy{{Type: "Pods", Value: 0, PeriodSeconds: 1801}, {Type: "Nodes", Value: 1, PeriodSeconds: 0}}},
			}
		}, []string{
			"spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
			`spec.behavior.scaleUp.selectPolicy: Unsupported value: "Sometimes": supported values: "Disabled", "Max", "Min"`,
			"spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
			"spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
			"spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
			"spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
			`spec.behavior.scaleDown.policies[1].type: Invalid value: "Nodes": must be either Pods or Percent`,
			"spec.behavior.scaleDown.policies[1].periodSeconds: Invalid value: 0: must be greater than zero",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := validHPA()
			tt.mutate(h)
			var got []string
			for _, e := range ValidateHorizontalPodAutoscaler(h) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateHPAUpdateStatus(t *testing.T) {
	old := validHPA()
	h := validHPA()
	h.Status.DesiredReplicas = -1
	errs := ValidateHorizontalPodAutoscalerUpdate(h, old)
	require.Len(t, errs, 1)
	assert.Equal(t, "status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0", errs[0].Error())
}

// FuzzHPA: any JSON body either fails to decode or defaults and validates
// without panicking.
func FuzzHPA(f *testing.F) {
	f.Add([]byte(hpaDoc))
	f.Add([]byte(`{"spec":{"metrics":[{"type":"Pods"}],"behavior":{"scaleUp":{}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h HorizontalPodAutoscaler
		if json.Unmarshal(b, &h) != nil {
			return
		}
		DefaultHorizontalPodAutoscaler(&h)
		_ = ValidateHorizontalPodAutoscaler(&h)
		_ = FromV2(&h).ToV2()
	})
}
