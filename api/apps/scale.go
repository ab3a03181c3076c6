package apps

import (
	"fmt"

	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// ScaleOf returns the autoscaling/v1 Scale of a *Deployment, *ReplicaSet or
// *StatefulSet, as the scale subresource serves it: the owner's name,
// namespace, uid, resourceVersion and creationTimestamp, spec.replicas, and
// the observed status.replicas with the selector in string form. Any other
// object yields ErrNotScalable; a selector that does not convert yields an
// error wrapping the labels package's.
func ScaleOf(obj meta.Object) (*autoscaling.Scale, error) {
	var (
		replicas *int32
		observed int32
		sel      *meta.LabelSelector
	)
	switch o := obj.(type) {
	case *Deployment:
		replicas, observed, sel = o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector
	case *ReplicaSet:
		replicas, observed, sel = o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector
	case *StatefulSet:
		replicas, observed, sel = o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector
	default:
		return nil, fmt.Errorf("scale of %T: %w", obj, ErrNotScalable)
	}
	s, err := labels.SelectorFromLabelSelector(sel)
	if err != nil {
		return nil, fmt.Errorf("scale of %s: selector: %w", obj.GetObjectMeta().Name, err)
	}
	m := obj.GetObjectMeta()
	sc := &autoscaling.Scale{
		TypeMeta: meta.TypeMeta{Kind: "Scale", APIVersion: autoscaling.GroupName + "/" + autoscaling.Version},
		ObjectMeta: meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
		Status: autoscaling.ScaleStatus{Replicas: observed, Selector: s.String()},
	}
	if replicas != nil {
		sc.Spec.Replicas = *replicas
	}
	return sc, nil
}

// ApplyScale sets spec.replicas of a *Deployment, *ReplicaSet or
// *StatefulSet from scale.Spec.Replicas; it changes nothing else. Any other
// object yields ErrNotScalable.
func ApplyScale(obj meta.Object, scale *autoscaling.Scale) error {
	n := scale.Spec.Replicas
	switch o := obj.(type) {
	case *Deployment:
		o.Spec.Replicas = &n
	case *ReplicaSet:
		o.Spec.Replicas = &n
	case *StatefulSet:
		o.Spec.Replicas = &n
	default:
		return fmt.Errorf("apply scale to %T: %w", obj, ErrNotScalable)
	}
	return nil
}
