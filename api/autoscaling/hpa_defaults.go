package autoscaling

// DefaultCPUUtilization is the target of an autoscaler that names no
// metric: 80% average CPU utilization, as Kubernetes defaults it.
const DefaultCPUUtilization int32 = 80

// DefaultHorizontalPodAutoscaler fills what Kubernetes defaults: 1 minimum
// replica, the CPU target when no metric is named, and, when a behavior
// is given, the missing parts of each direction's rules.
func DefaultHorizontalPodAutoscaler(h *HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		one := int32(1)
		h.Spec.MinReplicas = &one
	}
	if len(h.Spec.Metrics) == 0 {
		h.Spec.Metrics = []MetricSpec{cpuUtilization(DefaultCPUUtilization)}
	}
	if b := h.Spec.Behavior; b != nil {
		b.ScaleUp = fillRules(b.ScaleUp, DefaultScaleUpRules())
		b.ScaleDown = fillRules(b.ScaleDown, DefaultScaleDownRules())
	}
}

// DefaultHorizontalPodAutoscalerV1 fills the v1 defaults: 1 minimum
// replica (the CPU target stays unset: the controller applies 80%).
func DefaultHorizontalPodAutoscalerV1(h *HorizontalPodAutoscalerV1) {
	if h.Spec.MinReplicas == nil {
		one := int32(1)
		h.Spec.MinReplicas = &one
	}
}

// DefaultScaleUpRules are the scale-up rules of an autoscaler without
// them: no stabilization; the larger of 4 pods or 100% per 15 seconds.
func DefaultScaleUpRules() *HPAScalingRules {
	zero, sel := int32(0), MaxChangePolicySelect
	return &HPAScalingRules{
		StabilizationWindowSeconds: &zero,
		SelectPolicy:               &sel,
		Policies: []HPAScalingPolicy{
			{Type: PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// DefaultScaleDownRules are the scale-down rules of an autoscaler without
// them: 100% per 15 seconds; the stabilization window stays unset, so the
// controller's downscale stabilization (300 seconds by default) applies.
func DefaultScaleDownRules() *HPAScalingRules {
	sel := MaxChangePolicySelect
	return &HPAScalingRules{
		SelectPolicy: &sel,
		Policies:     []HPAScalingPolicy{{Type: PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
}

// fillRules returns r with what it leaves unset taken from def (def when
// r is nil).
func fillRules(r, def *HPAScalingRules) *HPAScalingRules {
	if r == nil {
		return def
	}
	if r.StabilizationWindowSeconds == nil {
		r.StabilizationWindowSeconds = def.StabilizationWindowSeconds
	}
	if r.SelectPolicy == nil {
		r.SelectPolicy = def.SelectPolicy
	}
	if r.Policies == nil {
		r.Policies = def.Policies
	}
	return r
}
