package apiserver

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

var hpaGVR = meta.GroupVersionResource{Group: autoscaling.GroupName, Version: autoscaling.VersionV2, Resource: "horizontalpodautoscalers"}

// hpaV1Type is the autoscaling/v1 view of HorizontalPodAutoscalers. It is
// not in the scheme: the API server serves it as a View of the stored
// autoscaling/v2 objects (registerHPAV1).
var hpaV1Type = &scheme.Type{
	Kind:         autoscaling.GroupVersionV1().WithKind("HorizontalPodAutoscaler"),
	Resource:     "horizontalpodautoscalers",
	Namespaced:   true,
	ShortNames:   []string{"hpa"},
	Categories:   []string{"all"},
	Subresources: []string{"status"},
	New:          func() meta.Object { return &autoscaling.HorizontalPodAutoscalerV1{} },
	NewList:      func() meta.ListObject { return &autoscaling.HorizontalPodAutoscalerListV1{} },
	Default: func(o meta.Object) {
		autoscaling.DefaultHorizontalPodAutoscalerV1(o.(*autoscaling.HorizontalPodAutoscalerV1))
	},
}

// hpaView converts between the stored autoscaling/v2 objects and
// autoscaling/v1 with Kubernetes' conversion (autoscaling.FromV2, ToV2:
// the CPU target ↔ a CPU utilization metric, everything v1 has no field
// for in annotations).
func hpaView(stored *scheme.Type) *View {
	return &View{
		Stored: stored,
		FromStored: func(in meta.Object) (meta.Object, error) {
			h, ok := in.(*autoscaling.HorizontalPodAutoscaler)
			if !ok {
				return nil, fmt.Errorf("%w: %T is not an autoscaling/v2 HorizontalPodAutoscaler", ErrConversion, in)
			}
			return autoscaling.FromV2(h), nil
		},
		ToStored: func(in meta.Object) (meta.Object, error) {
			h, ok := in.(*autoscaling.HorizontalPodAutoscalerV1)
			if !ok {
				return nil, fmt.Errorf("%w: %T is not an autoscaling/v1 HorizontalPodAutoscaler", ErrConversion, in)
			}
			return h.ToV2(), nil
		},
	}
}

// registerHPAV1 serves autoscaling/v1 horizontalpodautoscalers as a View
// of the v2 resource, when that is served: every verb, the status
// subresource and watches, prepared and validated by the v2 strategy on
// the converted object (as kube-apiserver validates the internal one).
// Discovery prefers v2.
func (s *Server) registerHPAV1() error {
	v2, ok := s.lookup(hpaGVR)
	if !ok {
		return nil
	}
	if _, ok := s.lookup(hpaV1Type.GroupVersionResource()); ok {
		return nil
	}
	view := hpaView(v2.Type)
	return s.Register(Resource{
		Type:     hpaV1Type,
		View:     view,
		Strategy: &ViewStrategy{View: view, Stored: v2.Strategy},
		Table:    hpaTable,
	})
}

// hpaTable is kube-apiserver's printer of HorizontalPodAutoscalers:
// reference, targets ("cpu: 12%/50%"), bounds and current replicas.
var hpaTable = &TableConvertor{
	Columns: []TableColumn{
		col("Reference", "string", "reference to the target resource", 0),
		col("Targets", "string", "the current and target values of the metrics", 0),
		col("MinPods", "string", "lower limit for the number of pods that can be set by the autoscaler", 0),
		col("MaxPods", "integer", "upper limit for the number of pods that can be set by the autoscaler", 0),
		col("Replicas", "integer", "current number of replicas of pods managed by this autoscaler", 0),
	},
	Cells: func(obj meta.Object) []any {
		h := toHPAV2(obj)
		ref := h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name
		minPods := "<unset>"
		if h.Spec.MinReplicas != nil {
			minPods = fmt.Sprint(*h.Spec.MinReplicas)
		}
		return []any{ref, hpaTargets(h.Spec.Metrics, h.Status.CurrentMetrics), minPods, int64(h.Spec.MaxReplicas), int64(h.Status.CurrentReplicas)}
	},
}

func toHPAV2(obj meta.Object) *autoscaling.HorizontalPodAutoscaler {
	if v1, ok := obj.(*autoscaling.HorizontalPodAutoscalerV1); ok {
		return v1.ToV2()
	}
	return obj.(*autoscaling.HorizontalPodAutoscaler)
}

// hpaTargets formats the metrics as kubectl shows them: "<current>/<target>"
// per metric, resource metrics prefixed with their name, at most three and
// then "+ N more...".
func hpaTargets(specs []autoscaling.MetricSpec, statuses []autoscaling.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	var list []string
	for i, spec := range specs {
		var st *autoscaling.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, hpaTarget(spec, st))
	}
	const maxShown = 3
	if len(list) > maxShown {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:maxShown], ", "), len(list)-maxShown)
	}
	return strings.Join(list, ", ")
}

func hpaTarget(spec autoscaling.MetricSpec, st *autoscaling.MetricStatus) string {
	cur := "<unknown>"
	value := func(t autoscaling.MetricTarget, v *autoscaling.MetricValueStatus) string {
		if t.AverageValue != nil {
			if v != nil && v.AverageValue != nil {
				cur = v.AverageValue.String()
			}
			return cur + "/" + t.AverageValue.String() + " (avg)"
		}
		if t.Value != nil {
			if v != nil && v.Value != nil {
				cur = v.Value.String()
			}
			return cur + "/" + t.Value.String()
		}
		return cur + "/<auto>"
	}
	resource := func(name string, t autoscaling.MetricTarget, v *autoscaling.MetricValueStatus) string {
		if t.AverageValue != nil {
			if v != nil && v.AverageValue != nil {
				cur = v.AverageValue.String()
			}
			return fmt.Sprintf("%s: %s/%s", name, cur, t.AverageValue.String())
		}
		if v != nil && v.AverageUtilization != nil {
			cur = fmt.Sprintf("%d%%", *v.AverageUtilization)
		}
		target := "<auto>"
		if t.AverageUtilization != nil {
			target = fmt.Sprintf("%d%%", *t.AverageUtilization)
		}
		return fmt.Sprintf("%s: %s/%s", name, cur, target)
	}
	switch {
	case spec.Resource != nil:
		var v *autoscaling.MetricValueStatus
		if st != nil && st.Resource != nil {
			v = &st.Resource.Current
		}
		return resource(string(spec.Resource.Name), spec.Resource.Target, v)
	case spec.ContainerResource != nil:
		var v *autoscaling.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			v = &st.ContainerResource.Current
		}
		return resource(string(spec.ContainerResource.Name), spec.ContainerResource.Target, v)
	case spec.Pods != nil:
		if st != nil && st.Pods != nil && st.Pods.Current.AverageValue != nil {
			cur = st.Pods.Current.AverageValue.String()
		}
		if spec.Pods.Target.AverageValue == nil {
			return cur + "/<auto>"
		}
		return cur + "/" + spec.Pods.Target.AverageValue.String()
	case spec.Object != nil:
		var v *autoscaling.MetricValueStatus
		if st != nil && st.Object != nil {
			v = &st.Object.Current
		}
		return value(spec.Object.Target, v)
	case spec.External != nil:
		var v *autoscaling.MetricValueStatus
		if st != nil && st.External != nil {
			v = &st.External.Current
		}
		return value(spec.External.Target, v)
	}
	return "<unknown type>"
}
