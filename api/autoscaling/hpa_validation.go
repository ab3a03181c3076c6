package autoscaling

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// Limits of the behavior, as Kubernetes validates them.
const (
	MaxStabilizationWindowSeconds int32 = 3600
	MaxPeriodSeconds              int32 = 1800
)

// ValidateHorizontalPodAutoscaler checks a new autoscaler as Kubernetes
// does, with its messages.
func ValidateHorizontalPodAutoscaler(h *HorizontalPodAutoscaler) field.ErrorList {
	errs := validation.ValidateObjectMeta(&h.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateHPASpec(&h.Spec, field.NewPath("spec"))...)
}

// ValidateHorizontalPodAutoscalerUpdate checks h as a replacement for old.
func ValidateHorizontalPodAutoscalerUpdate(h, old *HorizontalPodAutoscaler) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&h.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateHPASpec(&h.Spec, field.NewPath("spec"))...)
	return append(errs, validateHPAStatus(&h.Status, field.NewPath("status"))...)
}

func validateHPAStatus(s *HorizontalPodAutoscalerStatus, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.CurrentReplicas < 0 {
		errs = append(errs, field.Invalid(p.Child("currentReplicas"), s.CurrentReplicas, "must be greater than or equal to 0"))
	}
	if s.DesiredReplicas < 0 {
		errs = append(errs, field.Invalid(p.Child("desiredReplicas"), s.DesiredReplicas, "must be greater than or equal to 0"))
	}
	return errs
}

func validateHPASpec(spec *HorizontalPodAutoscalerSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinReplicas != nil && *spec.MinReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("minReplicas"), *spec.MinReplicas, "must be greater than or equal to 1"))
	}
	if spec.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than 0"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		errs = append(errs, field.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateReference(spec.ScaleTargetRef, p.Child("scaleTargetRef"))...)
	for i, m := range spec.Metrics {
		errs = append(errs, validateMetricSpec(m, p.Child("metrics").Index(i))...)
	}
	if b := spec.Behavior; b != nil {
		errs = append(errs, validateRules(b.ScaleUp, p.Child("behavior", "scaleUp"))...)
		errs = append(errs, validateRules(b.ScaleDown, p.Child("behavior", "scaleDown"))...)
	}
	return errs
}

// pathSegment is Kubernetes' IsValidPathSegmentName.
func pathSegment(s string) []string {
	switch s {
	case ".", "..":
		return []string{fmt.Sprintf("may not be '%s'", s)}
	}
	var msgs []string
	for _, c := range []string{"/", "%"} {
		if strings.Contains(s, c) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", c))
		}
	}
	return msgs
}

func validateReference(ref CrossVersionObjectReference, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct{ name, v string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.v == "" {
			errs = append(errs, field.Required(p.Child(f.name), ""))
			continue
		}
		for _, msg := range pathSegment(f.v) {
			errs = append(errs, field.Invalid(p.Child(f.name), f.v, msg))
		}
	}
	return errs
}

var metricSourceTypes = []string{string(ContainerResourceMetricSourceType), string(ExternalMetricSourceType),
	string(ObjectMetricSourceType), string(PodsMetricSourceType), string(ResourceMetricSourceType)}

// populated returns the JSON names of the sources m sets.
func (m MetricSpec) populated() []string {
	var out []string
	for _, s := range []struct {
		name string
		set  bool
	}{{"object", m.Object != nil}, {"pods", m.Pods != nil}, {"resource", m.Resource != nil},
		{"containerResource", m.ContainerResource != nil}, {"external", m.External != nil}} {
		if s.set {
			out = append(out, s.name)
		}
	}
	return out
}

func sourceField(t MetricSourceType) string {
	if t == "" {
		return ""
	}
	return strings.ToLower(string(t[:1])) + string(t[1:])
}

func validateMetricSpec(m MetricSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case m.Type == "":
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric source type"))
	case !contains(metricSourceTypes, string(m.Type)):
		errs = append(errs, field.NotSupported(p.Child("type"), m.Type, metricSourceTypes))
	}
	want := sourceField(m.Type)
	set := m.populated()
	if len(set) > 1 {
		for _, s := range set {
			if s != want {
				errs = append(errs, field.Forbidden(p.Child(s), "must populate the given metric source only"))
			}
		}
	}
	if want != "" && contains(metricSourceTypes, string(m.Type)) && !contains(set, want) {
		errs = append(errs, field.Required(p.Child(want), "must populate information for the given metric source"))
	}
	switch {
	case m.Resource != nil:
		errs = append(errs, validateResourceSource(m.Resource.Name, m.Resource.Target, p.Child("resource"))...)
	case m.ContainerResource != nil:
		cp := p.Child("containerResource")
		errs = append(errs, validateResourceSource(m.ContainerResource.Name, m.ContainerResource.Target, cp)...)
		if m.ContainerResource.Container == "" {
			errs = append(errs, field.Required(cp.Child("container"), "must specify a container"))
		}
	case m.Pods != nil:
		errs = append(errs, validateIdentifier(m.Pods.Metric, p.Child("pods", "metric"))...)
		errs = append(errs, validateTarget(m.Pods.Target, p.Child("pods", "target"))...)
		if m.Pods.Target.AverageValue == nil {
			errs = append(errs, field.Required(p.Child("pods", "target", "averageValue"), "must specify a positive target averageValue"))
		}
	case m.Object != nil:
		errs = append(errs, validateReference(m.Object.DescribedObject, p.Child("object", "describedObject"))...)
		errs = append(errs, validateIdentifier(m.Object.Metric, p.Child("object", "metric"))...)
		errs = append(errs, validateValueTarget(m.Object.Target, p.Child("object", "target"))...)
	case m.External != nil:
		errs = append(errs, validateIdentifier(m.External.Metric, p.Child("external", "metric"))...)
		errs = append(errs, validateValueTarget(m.External.Target, p.Child("external", "target"))...)
	}
	return errs
}

func validateValueTarget(t MetricTarget, p *field.Path) field.ErrorList {
	errs := validateTarget(t, p)
	if t.Value == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("averageValue"), "must set either a target value or averageValue"))
	}
	return errs
}

func validateIdentifier(id MetricIdentifier, p *field.Path) field.ErrorList {
	if id.Name == "" {
		return field.ErrorList{field.Required(p.Child("name"), "must specify a metric name")}
	}
	var errs field.ErrorList
	for _, msg := range pathSegment(id.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), id.Name, msg))
	}
	return errs
}

func validateResourceSource(name core.ResourceName, t MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), "must specify a resource name"))
	}
	errs = append(errs, validateTarget(t, p.Child("target"))...)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(p.Child("target", "averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(p.Child("target", "averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateTarget(t MetricTarget, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch t.Type {
	case "":
		errs = append(errs, field.Required(p.Child("type"), "must specify a metric target type"))
	case UtilizationMetricType, ValueMetricType, AverageValueMetricType:
	default:
		errs = append(errs, field.Invalid(p.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("value"), t.Value.String(), "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(p.Child("averageValue"), t.AverageValue.String(), "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(p.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

var policySelects = []string{string(DisabledPolicySelect), string(MaxChangePolicySelect), string(MinChangePolicySelect)}

func validateRules(r *HPAScalingRules, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil {
		if *w < 0 {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"))
		} else if *w > MaxStabilizationWindowSeconds {
			errs = append(errs, field.Invalid(p.Child("stabilizationWindowSeconds"), *w,
				fmt.Sprintf("must be less than or equal to %d", MaxStabilizationWindowSeconds)))
		}
	}
	if s := r.SelectPolicy; s != nil && !contains(policySelects, string(*s)) {
		errs = append(errs, field.NotSupported(p.Child("selectPolicy"), *s, policySelects))
	}
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(p.Child("policies"), "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		pp := p.Child("policies").Index(i)
		if pol.Type != PodsScalingPolicy && pol.Type != PercentScalingPolicy {
			errs = append(errs, field.Invalid(pp.Child("type"), pol.Type, "must be either Pods or Percent"))
		}
		if pol.Value <= 0 {
			errs = append(errs, field.Invalid(pp.Child("value"), pol.Value, "must be greater than zero"))
		}
		if pol.PeriodSeconds <= 0 {
			errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero"))
		} else if pol.PeriodSeconds > MaxPeriodSeconds {
			errs = append(errs, field.Invalid(pp.Child("periodSeconds"), pol.PeriodSeconds,
				fmt.Sprintf("must be less than or equal to %d", MaxPeriodSeconds)))
		}
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
