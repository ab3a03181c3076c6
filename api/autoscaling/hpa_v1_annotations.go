package autoscaling

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// The autoscaling/v1 metric forms that the metrics and current-metrics
// annotations hold (Kubernetes' autoscaling/v1 MetricSpec and
// MetricStatus, the v2beta1 shape), and their conversion to and from v2,
// as Kubernetes converts them.

type v1MetricSpec struct {
	Type              MetricSourceType         `json:"type"`
	Object            *v1ObjectMetricSource    `json:"object,omitempty"`
	Pods              *v1PodsMetricSource      `json:"pods,omitempty"`
	Resource          *v1ResourceMetricSource  `json:"resource,omitempty"`
	ContainerResource *v1ContainerMetricSource `json:"containerResource,omitempty"`
	External          *v1ExternalMetricSource  `json:"external,omitempty"`
}

type v1ObjectMetricSource struct {
	Target       CrossVersionObjectReference `json:"target"`
	MetricName   string                      `json:"metricName"`
	TargetValue  resource.Quantity           `json:"targetValue"`
	Selector     *meta.LabelSelector         `json:"selector,omitempty"`
	AverageValue *resource.Quantity          `json:"averageValue,omitempty"`
}

type v1PodsMetricSource struct {
	MetricName         string              `json:"metricName"`
	TargetAverageValue resource.Quantity   `json:"targetAverageValue"`
	Selector           *meta.LabelSelector `json:"selector,omitempty"`
}

type v1ResourceMetricSource struct {
	Name                     core.ResourceName  `json:"name"`
	TargetAverageUtilization *int32             `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *resource.Quantity `json:"targetAverageValue,omitempty"`
}

type v1ContainerMetricSource struct {
	Name                     core.ResourceName  `json:"name"`
	TargetAverageUtilization *int32             `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *resource.Quantity `json:"targetAverageValue,omitempty"`
	Container                string             `json:"container"`
}

type v1ExternalMetricSource struct {
	MetricName         string              `json:"metricName"`
	MetricSelector     *meta.LabelSelector `json:"metricSelector,omitempty"`
	TargetValue        *resource.Quantity  `json:"targetValue,omitempty"`
	TargetAverageValue *resource.Quantity  `json:"targetAverageValue,omitempty"`
}

type v1MetricStatus struct {
	Type              MetricSourceType         `json:"type"`
	Object            *v1ObjectMetricStatus    `json:"object,omitempty"`
	Pods              *v1PodsMetricStatus      `json:"pods,omitempty"`
	Resource          *v1ResourceMetricStatus  `json:"resource,omitempty"`
	ContainerResource *v1ContainerMetricStatus `json:"containerResource,omitempty"`
	External          *v1ExternalMetricStatus  `json:"external,omitempty"`
}

type v1ObjectMetricStatus struct {
	Target       CrossVersionObjectReference `json:"target"`
	MetricName   string                      `json:"metricName"`
	CurrentValue resource.Quantity           `json:"currentValue"`
	Selector     *meta.LabelSelector         `json:"selector,omitempty"`
	AverageValue *resource.Quantity          `json:"averageValue,omitempty"`
}

type v1PodsMetricStatus struct {
	MetricName          string              `json:"metricName"`
	CurrentAverageValue resource.Quantity   `json:"currentAverageValue"`
	Selector            *meta.LabelSelector `json:"selector,omitempty"`
}

type v1ResourceMetricStatus struct {
	Name                      core.ResourceName `json:"name"`
	CurrentAverageUtilization *int32            `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       resource.Quantity `json:"currentAverageValue"`
}

type v1ContainerMetricStatus struct {
	Name                      core.ResourceName `json:"name"`
	CurrentAverageUtilization *int32            `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       resource.Quantity `json:"currentAverageValue"`
	Container                 string            `json:"container"`
}

type v1ExternalMetricStatus struct {
	MetricName          string              `json:"metricName"`
	MetricSelector      *meta.LabelSelector `json:"metricSelector,omitempty"`
	CurrentValue        resource.Quantity   `json:"currentValue"`
	CurrentAverageValue *resource.Quantity  `json:"currentAverageValue,omitempty"`
}

// behaviorAnnotation is the behavior as Kubernetes writes it into its
// annotation: its internal type, which has no JSON tags, so Go field
// names. Reading goes into HorizontalPodAutoscalerBehavior directly
// (encoding/json matches names case-insensitively, as Kubernetes reads it).
type behaviorAnnotation struct {
	ScaleUp   *scalingRulesAnnotation
	ScaleDown *scalingRulesAnnotation
}

type scalingRulesAnnotation struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *ScalingPolicySelect
	Policies                   []scalingPolicyAnnotation
}

type scalingPolicyAnnotation struct {
	Type          HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

func behaviorAnnotationOf(b *HorizontalPodAutoscalerBehavior) behaviorAnnotation {
	rules := func(r *HPAScalingRules) *scalingRulesAnnotation {
		if r == nil {
			return nil
		}
		out := &scalingRulesAnnotation{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, scalingPolicyAnnotation(p))
		}
		return out
	}
	return behaviorAnnotation{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

func derefQuantity(q *resource.Quantity) resource.Quantity {
	if q == nil {
		return resource.Quantity{}
	}
	return *q
}

func ptrQuantity(q resource.Quantity) *resource.Quantity { return &q }

func metricSpecToV1(m MetricSpec) v1MetricSpec {
	out := v1MetricSpec{Type: m.Type}
	switch {
	case m.Object != nil:
		o := m.Object
		out.Object = &v1ObjectMetricSource{Target: o.DescribedObject, MetricName: o.Metric.Name, TargetValue: derefQuantity(o.Target.Value),
			Selector: o.Metric.Selector, AverageValue: o.Target.AverageValue}
	case m.Pods != nil:
		out.Pods = &v1PodsMetricSource{MetricName: m.Pods.Metric.Name, TargetAverageValue: derefQuantity(m.Pods.Target.AverageValue), Selector: m.Pods.Metric.Selector}
	case m.Resource != nil:
		out.Resource = &v1ResourceMetricSource{Name: m.Resource.Name, TargetAverageUtilization: m.Resource.Target.AverageUtilization,
			TargetAverageValue: m.Resource.Target.AverageValue}
	case m.ContainerResource != nil:
		c := m.ContainerResource
		out.ContainerResource = &v1ContainerMetricSource{Name: c.Name, TargetAverageUtilization: c.Target.AverageUtilization,
			TargetAverageValue: c.Target.AverageValue, Container: c.Container}
	case m.External != nil:
		e := m.External
		out.External = &v1ExternalMetricSource{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, TargetValue: e.Target.Value,
			TargetAverageValue: e.Target.AverageValue}
	}
	return out
}

func (m v1MetricSpec) toV2() MetricSpec {
	out := MetricSpec{Type: m.Type}
	switch {
	case m.Object != nil:
		o := m.Object
		t := ValueMetricType
		if o.AverageValue != nil {
			t = AverageValueMetricType
		}
		out.Object = &ObjectMetricSource{DescribedObject: o.Target, Metric: MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
			Target: MetricTarget{Type: t, Value: ptrQuantity(o.TargetValue), AverageValue: o.AverageValue}}
	case m.Pods != nil:
		out.Pods = &PodsMetricSource{Metric: MetricIdentifier{Name: m.Pods.MetricName, Selector: m.Pods.Selector},
			Target: MetricTarget{Type: AverageValueMetricType, AverageValue: ptrQuantity(m.Pods.TargetAverageValue)}}
	case m.Resource != nil:
		out.Resource = &ResourceMetricSource{Name: m.Resource.Name, Target: resourceTarget(m.Resource.TargetAverageUtilization, m.Resource.TargetAverageValue)}
	case m.ContainerResource != nil:
		c := m.ContainerResource
		out.ContainerResource = &ContainerResourceMetricSource{Name: c.Name, Container: c.Container,
			Target: resourceTarget(c.TargetAverageUtilization, c.TargetAverageValue)}
	case m.External != nil:
		e := m.External
		t := AverageValueMetricType
		if e.TargetValue != nil {
			t = ValueMetricType
		}
		out.External = &ExternalMetricSource{Metric: MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
			Target: MetricTarget{Type: t, Value: e.TargetValue, AverageValue: e.TargetAverageValue}}
	}
	return out
}

// resourceTarget is a v1 resource target in v2: Utilization when a
// utilization is set, else AverageValue.
func resourceTarget(util *int32, avg *resource.Quantity) MetricTarget {
	if util != nil {
		return MetricTarget{Type: UtilizationMetricType, AverageUtilization: util, AverageValue: avg}
	}
	return MetricTarget{Type: AverageValueMetricType, AverageValue: avg}
}

func metricStatusToV1(m MetricStatus) v1MetricStatus {
	out := v1MetricStatus{Type: m.Type}
	switch {
	case m.Object != nil:
		o := m.Object
		out.Object = &v1ObjectMetricStatus{Target: o.DescribedObject, MetricName: o.Metric.Name, Selector: o.Metric.Selector,
			CurrentValue: derefQuantity(o.Current.Value), AverageValue: o.Current.AverageValue}
	case m.Pods != nil:
		out.Pods = &v1PodsMetricStatus{MetricName: m.Pods.Metric.Name, Selector: m.Pods.Metric.Selector, CurrentAverageValue: derefQuantity(m.Pods.Current.AverageValue)}
	case m.Resource != nil:
		out.Resource = &v1ResourceMetricStatus{Name: m.Resource.Name, CurrentAverageUtilization: m.Resource.Current.AverageUtilization,
			CurrentAverageValue: derefQuantity(m.Resource.Current.AverageValue)}
	case m.ContainerResource != nil:
		c := m.ContainerResource
		out.ContainerResource = &v1ContainerMetricStatus{Name: c.Name, Container: c.Container, CurrentAverageUtilization: c.Current.AverageUtilization,
			CurrentAverageValue: derefQuantity(c.Current.AverageValue)}
	case m.External != nil:
		e := m.External
		out.External = &v1ExternalMetricStatus{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector,
			CurrentValue: derefQuantity(e.Current.Value), CurrentAverageValue: e.Current.AverageValue}
	}
	return out
}

func (m v1MetricStatus) toV2() MetricStatus {
	out := MetricStatus{Type: m.Type}
	switch {
	case m.Object != nil:
		o := m.Object
		out.Object = &ObjectMetricStatus{DescribedObject: o.Target, Metric: MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
			Current: MetricValueStatus{Value: ptrQuantity(o.CurrentValue), AverageValue: o.AverageValue}}
	case m.Pods != nil:
		out.Pods = &PodsMetricStatus{Metric: MetricIdentifier{Name: m.Pods.MetricName, Selector: m.Pods.Selector},
			Current: MetricValueStatus{AverageValue: ptrQuantity(m.Pods.CurrentAverageValue)}}
	case m.Resource != nil:
		out.Resource = &ResourceMetricStatus{Name: m.Resource.Name,
			Current: MetricValueStatus{AverageUtilization: m.Resource.CurrentAverageUtilization, AverageValue: ptrQuantity(m.Resource.CurrentAverageValue)}}
	case m.ContainerResource != nil:
		c := m.ContainerResource
		out.ContainerResource = &ContainerResourceMetricStatus{Name: c.Name, Container: c.Container,
			Current: MetricValueStatus{AverageUtilization: c.CurrentAverageUtilization, AverageValue: ptrQuantity(c.CurrentAverageValue)}}
	case m.External != nil:
		e := m.External
		out.External = &ExternalMetricStatus{Metric: MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
			Current: MetricValueStatus{Value: ptrQuantity(e.CurrentValue), AverageValue: e.CurrentAverageValue}}
	}
	return out
}
