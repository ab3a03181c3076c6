package podautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/metrics"
	"github.com/orkit/orkit/api/resource"
)

// pod is a running pod named name requesting cpuReq of CPU; ready unless
// told otherwise.
func pod(name, cpuReq string, ready bool) *core.Pod {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"}}
	p.Spec.Containers = []core.Container{{Name: "app"}}
	if cpuReq != "" {
		p.Spec.Containers[0].Resources.Requests = core.ResourceList{core.ResourceCPU: resource.MustParse(cpuReq), core.ResourceMemory: resource.MustParse("100Mi")}
	}
	p.Status.Phase = core.PodRunning
	st := meta.ConditionFalse
	if ready {
		st = meta.ConditionTrue
	}
	p.Status.Conditions = []core.PodCondition{{Type: core.PodReady, Status: st}}
	return p
}

func usage(name, cpu, mem string) metrics.PodMetrics {
	return metrics.PodMetrics{ObjectMeta: meta.ObjectMeta{Name: name}, Containers: []metrics.ContainerMetrics{{Name: "app",
		Usage: core.ResourceList{core.ResourceCPU: resource.MustParse(cpu), core.ResourceMemory: resource.MustParse(mem)}}}}
}

func TestReplicasForResource(t *testing.T) {
	cpu50 := ResourceTarget{Resource: core.ResourceCPU, Utilization: 50}
	mem := ResourceTarget{Resource: core.ResourceMemory, AverageValue: 50 << 20}
	three := []*core.Pod{pod("a", "100m", true), pod("b", "100m", true), pod("c", "100m", true)}
	tests := []struct {
		name    string
		current int32
		target  ResourceTarget
		pods    []*core.Pod
		metrics []metrics.PodMetrics
		want    Recommendation
		wantErr error
	}{
		{"at target", 3, cpu50, three, []metrics.PodMetrics{usage("a", "50m", "1Mi"), usage("b", "50m", "1Mi"), usage("c", "50m", "1Mi")},
			Recommendation{Replicas: 3, Utilization: 50, AverageValue: 50}, nil},
		{"within tolerance", 3, cpu50, three, []metrics.PodMetrics{usage("a", "54m", "1Mi"), usage("b", "54m", "1Mi"), usage("c", "54m", "1Mi")},
			Recommendation{Replicas: 3, Utilization: 54, AverageValue: 54}, nil},
		{"just beyond tolerance", 3, cpu50, three, []metrics.PodMetrics{usage("a", "56m", "1Mi"), usage("b", "56m", "1Mi"), usage("c", "56m", "1Mi")},
			Recommendation{Replicas: 4, Utilization: 56, AverageValue: 56}, nil},
		{"double the target", 3, cpu50, three, []metrics.PodMetrics{usage("a", "100m", "1Mi"), usage("b", "100m", "1Mi"), usage("c", "100m", "1Mi")},
			Recommendation{Replicas: 6, Utilization: 100, AverageValue: 100}, nil},
		{"scale down", 3, cpu50, three, []metrics.PodMetrics{usage("a", "10m", "1Mi"), usage("b", "10m", "1Mi"), usage("c", "10m", "1Mi")},
			Recommendation{Replicas: 1, Utilization: 10, AverageValue: 10}, nil},
		// A pod without metrics counts as using its whole request when
		// scaling down: 2 pods at 10%, 1 at 100% is 40%, ceil(0.8*3) = 3.
		{"missing pod damps scale down", 3, cpu50, three, []metrics.PodMetrics{usage("a", "10m", "1Mi"), usage("b", "10m", "1Mi")},
			Recommendation{Replicas: 3, Utilization: 10, AverageValue: 10}, nil},
		// An unready pod counts as idle when scaling up: (200+200+0)/300 = 133%.
		{"unready pod damps scale up", 3, cpu50, []*core.Pod{pod("a", "100m", true), pod("b", "100m", true), pod("c", "100m", false)},
			[]metrics.PodMetrics{usage("a", "200m", "1Mi"), usage("b", "200m", "1Mi"), usage("c", "0", "1Mi")},
			Recommendation{Replicas: 8, Utilization: 200, AverageValue: 200}, nil},
		{"average memory", 2, mem, three[:2], []metrics.PodMetrics{usage("a", "1m", "100Mi"), usage("b", "1m", "100Mi")},
			Recommendation{Replicas: 4, AverageValue: 100 << 20}, nil},
		{"no metrics", 3, cpu50, three, nil, Recommendation{}, ErrNoMetrics},
		{"missing request", 1, cpu50, []*core.Pod{pod("a", "", true)}, []metrics.PodMetrics{usage("a", "10m", "1Mi")}, Recommendation{}, ErrMissingRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplicasForResource(tt.current, tt.target, tt.pods, tt.metrics, DefaultTolerance)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func i32(v int32) *int32 { return &v }

func TestStabilizationWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	rules := ResolveRules(nil, 5*time.Minute)
	var h history
	steps := []struct {
		at      time.Duration
		desired int32
		current int32
		want    int32
		reason  string
	}{
		{0, 5, 5, 5, "ScaleUpStabilized"},
		{15 * time.Second, 2, 5, 5, "ScaleDownStabilized"}, // 5 seen within the 5-minute window
		{2 * time.Minute, 3, 5, 5, "ScaleDownStabilized"},
		{5*time.Minute + time.Second, 2, 5, 3, "ScaleDownStabilized"}, // the 5 has left the window; 3 (2m) has not
		{8 * time.Minute, 2, 3, 2, "ScaleDownStabilized"},
		{8*time.Minute + 15*time.Second, 6, 2, 6, "ScaleUpStabilized"}, // scale-up window is 0: no delay
	}
	for _, s := range steps {
		got, reason, _ := h.stabilize(s.desired, s.current, rules, t0.Add(s.at))
		assert.Equal(t, s.want, got, "at %v", s.at)
		assert.Equal(t, s.reason, reason, "at %v", s.at)
	}
	// A scale-up window holds back a rise until the lowest recent
	// recommendation rises too.
	up := ResolveRules(&autoscaling.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscaling.HPAScalingRules{StabilizationWindowSeconds: i32(60)}}, 0)
	var h2 history
	got, _, _ := h2.stabilize(2, 2, up, t0)
	assert.Equal(t, int32(2), got)
	got, _, _ = h2.stabilize(6, 2, up, t0.Add(30*time.Second))
	assert.Equal(t, int32(2), got)
	got, _, _ = h2.stabilize(6, 2, up, t0.Add(61*time.Second))
	assert.Equal(t, int32(6), got)
}

func TestLimit(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	def := ResolveRules(nil, 0)
	minSel := autoscaling.MinChangePolicySelect
	disabled := autoscaling.DisabledPolicySelect
	slow := ResolveRules(&autoscaling.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscaling.HPAScalingRules{SelectPolicy: &minSel, Policies: []autoscaling.HPAScalingPolicy{
			{Type: autoscaling.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}, {Type: autoscaling.PercentScalingPolicy, Value: 50, PeriodSeconds: 60}}},
		ScaleDown: &autoscaling.HPAScalingRules{SelectPolicy: &disabled}}, 0)
	tests := []struct {
		name                     string
		rules                    Rules
		past                     []event // earlier scale-ups
		desired, current, mn, mx int32
		want                     int32
		reason                   string
	}{
		{"within range", def, nil, 4, 2, 1, 10, 4, "DesiredWithinRange"},
		{"above max", def, nil, 12, 8, 1, 10, 10, "TooManyReplicas"},
		{"below min", def, nil, 1, 4, 2, 10, 2, "TooFewReplicas"},
		{"4 pods or 100% per 15s", def, nil, 20, 1, 1, 30, 5, "ScaleUpLimit"},
		{"100% of 8", def, nil, 30, 8, 1, 30, 16, "ScaleUpLimit"},
		{"a recent scale-up counts", def, []event{{change: 4, at: t0.Add(-5 * time.Second)}}, 30, 8, 1, 30, 8, "ScaleUpLimit"},
		{"min of policies", slow, nil, 10, 4, 1, 30, 5, "ScaleUpLimit"},
		{"scale down disabled", slow, nil, 1, 4, 1, 30, 4, "ScaleDownLimit"},
		{"100% down", def, nil, 1, 4, 1, 30, 1, "DesiredWithinRange"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := history{scaleUps: tt.past}
			got, reason, _ := h.limit(tt.desired, tt.current, tt.mn, tt.mx, tt.rules, t0)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.reason, reason)
		})
	}
}

func TestRecordPrunes(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	var h history
	h.record(1, 3, t0)
	h.record(3, 2, t0.Add(time.Second))
	h.record(2, 2, t0.Add(2*time.Second))
	assert.Equal(t, []event{{change: 2, at: t0}}, h.scaleUps)
	assert.Equal(t, []event{{change: 1, at: t0.Add(time.Second)}}, h.scaleDowns)
	h.record(2, 4, t0.Add(time.Hour))
	assert.Equal(t, []event{{change: 2, at: t0.Add(time.Hour)}}, h.scaleUps)
	assert.Empty(t, h.scaleDowns)
}
