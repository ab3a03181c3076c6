package autoscaling

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

// VersionV2 is the version HorizontalPodAutoscalers are stored and
// preferably served in.
const VersionV2 = "v2"

// GroupVersionV2 returns autoscaling/v2.
func GroupVersionV2() meta.GroupVersion {
	return meta.GroupVersion{Group: GroupName, Version: VersionV2}
}

// GroupVersionV1 returns autoscaling/v1.
func GroupVersionV1() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// HorizontalPodAutoscaler (autoscaling/v2) sets the replica count of a
// scalable workload from observed metrics. It marshals to JSON exactly as
// Kubernetes' autoscaling/v2; values are plain data.
type HorizontalPodAutoscaler struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            HorizontalPodAutoscalerSpec   `json:"spec,omitempty"`
	Status          HorizontalPodAutoscalerStatus `json:"status,omitempty"`
}

// HorizontalPodAutoscalerList is a list of HorizontalPodAutoscalers.
type HorizontalPodAutoscalerList = meta.List[HorizontalPodAutoscaler]

// HorizontalPodAutoscalerSpec is what to scale, within which bounds, on
// which metrics and how fast.
type HorizontalPodAutoscalerSpec struct {
	// ScaleTargetRef names the workload whose scale subresource is set.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef"`
	// MinReplicas is the lower bound; defaulted to 1.
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// MaxReplicas is the upper bound; at least MinReplicas.
	MaxReplicas int32 `json:"maxReplicas"`
	// Metrics are the targets; the desired count is the largest any of
	// them asks for. Defaulted to 80% average CPU utilization.
	Metrics []MetricSpec `json:"metrics,omitempty"`
	// Behavior limits the rate of scaling up and down; nil means the
	// defaults (DefaultScaleUpRules, DefaultScaleDownRules).
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// CrossVersionObjectReference names an object of any group and version.
type CrossVersionObjectReference struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// MetricSourceType is the kind of a metric.
type MetricSourceType string

// The metric source types.
const (
	ObjectMetricSourceType            MetricSourceType = "Object"
	PodsMetricSourceType              MetricSourceType = "Pods"
	ResourceMetricSourceType          MetricSourceType = "Resource"
	ContainerResourceMetricSourceType MetricSourceType = "ContainerResource"
	ExternalMetricSourceType          MetricSourceType = "External"
)

// MetricSpec is one metric and its target; exactly the source named by
// Type is set.
type MetricSpec struct {
	Type              MetricSourceType               `json:"type"`
	Object            *ObjectMetricSource            `json:"object,omitempty"`
	Pods              *PodsMetricSource              `json:"pods,omitempty"`
	Resource          *ResourceMetricSource          `json:"resource,omitempty"`
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty"`
	External          *ExternalMetricSource          `json:"external,omitempty"`
}

// ResourceMetricSource is a resource (cpu, memory) of the target's pods,
// as the Metrics API reports it, averaged over the pods.
type ResourceMetricSource struct {
	Name   core.ResourceName `json:"name"`
	Target MetricTarget      `json:"target"`
}

// ContainerResourceMetricSource is a resource of one container of the
// target's pods.
type ContainerResourceMetricSource struct {
	Name      core.ResourceName `json:"name"`
	Target    MetricTarget      `json:"target"`
	Container string            `json:"container"`
}

// ObjectMetricSource is a metric describing one object.
type ObjectMetricSource struct {
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
	Target          MetricTarget                `json:"target"`
	Metric          MetricIdentifier            `json:"metric"`
}

// PodsMetricSource is a custom metric of each pod, averaged.
type PodsMetricSource struct {
	Metric MetricIdentifier `json:"metric"`
	Target MetricTarget     `json:"target"`
}

// ExternalMetricSource is a metric of nothing in the cluster.
type ExternalMetricSource struct {
	Metric MetricIdentifier `json:"metric"`
	Target MetricTarget     `json:"target"`
}

// MetricIdentifier names a custom or external metric.
type MetricIdentifier struct {
	Name     string              `json:"name"`
	Selector *meta.LabelSelector `json:"selector,omitempty"`
}

// MetricTargetType is how a target is expressed.
type MetricTargetType string

// The metric target types.
const (
	UtilizationMetricType  MetricTargetType = "Utilization"
	ValueMetricType        MetricTargetType = "Value"
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// MetricTarget is the value a metric should have: a total, an average
// per pod, or an average utilization in percent of the pods' requests.
type MetricTarget struct {
	Type               MetricTargetType   `json:"type"`
	Value              *resource.Quantity `json:"value,omitempty"`
	AverageValue       *resource.Quantity `json:"averageValue,omitempty"`
	AverageUtilization *int32             `json:"averageUtilization,omitempty"`
}

// HorizontalPodAutoscalerBehavior holds the scaling rules of each
// direction; a nil direction gets its defaults.
type HorizontalPodAutoscalerBehavior struct {
	ScaleUp   *HPAScalingRules `json:"scaleUp,omitempty"`
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty"`
}

// ScalingPolicySelect picks among the policies' limits.
type ScalingPolicySelect string

// The policy selections.
const (
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	MinChangePolicySelect ScalingPolicySelect = "Min"
	DisabledPolicySelect  ScalingPolicySelect = "Disabled"
)

// HPAScalingRules limits one direction: recommendations are stabilized
// over a window, and each period allows a change of at most what the
// selected policy allows.
type HPAScalingRules struct {
	StabilizationWindowSeconds *int32               `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *ScalingPolicySelect `json:"selectPolicy,omitempty"`
	Policies                   []HPAScalingPolicy   `json:"policies,omitempty"`
}

// HPAScalingPolicyType is the unit of a policy's value.
type HPAScalingPolicyType string

// The policy types.
const (
	PodsScalingPolicy    HPAScalingPolicyType = "Pods"
	PercentScalingPolicy HPAScalingPolicyType = "Percent"
)

// HPAScalingPolicy allows a change of Value pods or percent within
// PeriodSeconds.
type HPAScalingPolicy struct {
	Type          HPAScalingPolicyType `json:"type"`
	Value         int32                `json:"value"`
	PeriodSeconds int32                `json:"periodSeconds"`
}

// HorizontalPodAutoscalerStatus is what the controller last saw and did.
type HorizontalPodAutoscalerStatus struct {
	ObservedGeneration *int64                             `json:"observedGeneration,omitempty"`
	LastScaleTime      *meta.Time                         `json:"lastScaleTime,omitempty"`
	CurrentReplicas    int32                              `json:"currentReplicas,omitempty"`
	DesiredReplicas    int32                              `json:"desiredReplicas"`
	CurrentMetrics     []MetricStatus                     `json:"currentMetrics,omitempty"`
	Conditions         []HorizontalPodAutoscalerCondition `json:"conditions,omitempty"`
}

// MetricStatus is the current value of one metric of the spec.
type MetricStatus struct {
	Type              MetricSourceType               `json:"type"`
	Object            *ObjectMetricStatus            `json:"object,omitempty"`
	Pods              *PodsMetricStatus              `json:"pods,omitempty"`
	Resource          *ResourceMetricStatus          `json:"resource,omitempty"`
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty"`
	External          *ExternalMetricStatus          `json:"external,omitempty"`
}

// ResourceMetricStatus is the current value of a resource metric.
type ResourceMetricStatus struct {
	Name    core.ResourceName `json:"name"`
	Current MetricValueStatus `json:"current"`
}

// ContainerResourceMetricStatus is the current value of a container
// resource metric.
type ContainerResourceMetricStatus struct {
	Name      core.ResourceName `json:"name"`
	Current   MetricValueStatus `json:"current"`
	Container string            `json:"container"`
}

// ObjectMetricStatus is the current value of an object metric.
type ObjectMetricStatus struct {
	Metric          MetricIdentifier            `json:"metric"`
	Current         MetricValueStatus           `json:"current"`
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
}

// PodsMetricStatus is the current value of a pods metric.
type PodsMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric"`
	Current MetricValueStatus `json:"current"`
}

// ExternalMetricStatus is the current value of an external metric.
type ExternalMetricStatus struct {
	Metric  MetricIdentifier  `json:"metric"`
	Current MetricValueStatus `json:"current"`
}

// MetricValueStatus is a metric's current value in the target's terms.
type MetricValueStatus struct {
	Value              *resource.Quantity `json:"value,omitempty"`
	AverageValue       *resource.Quantity `json:"averageValue,omitempty"`
	AverageUtilization *int32             `json:"averageUtilization,omitempty"`
}

// HorizontalPodAutoscalerConditionType names a condition.
type HorizontalPodAutoscalerConditionType string

// The conditions the controller keeps.
const (
	// ScalingActive: the metrics could be read and a count computed.
	ScalingActive HorizontalPodAutoscalerConditionType = "ScalingActive"
	// AbleToScale: the target's scale could be read and written now.
	AbleToScale HorizontalPodAutoscalerConditionType = "AbleToScale"
	// ScalingLimited: the desired count was clamped by the bounds or the
	// behavior's policies.
	ScalingLimited HorizontalPodAutoscalerConditionType = "ScalingLimited"
)

// HorizontalPodAutoscalerCondition is one condition of the status.
type HorizontalPodAutoscalerCondition struct {
	Type               HorizontalPodAutoscalerConditionType `json:"type"`
	Status             meta.ConditionStatus                 `json:"status"`
	LastTransitionTime meta.Time                            `json:"lastTransitionTime,omitzero"`
	Reason             string                               `json:"reason,omitempty"`
	Message            string                               `json:"message,omitempty"`
}
