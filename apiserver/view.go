package apiserver

import (
	"context"
	"fmt"
	"reflect"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// View makes a Resource a second view of the objects of another resource,
// as kube-apiserver serves events.k8s.io/v1 Events from the core/v1 Event
// storage and autoscaling/v1 HorizontalPodAutoscalers from the
// autoscaling/v2 storage: the objects are stored as Stored (under its
// resource's keys, where the other resource reads them) and converted on
// every read (gets, lists from the store and from the view's own watch
// cache, watch events, the current object of an update or patch) and
// every write (create, update, patch, apply, status). Whatever one view
// writes, the other reads. The conversions must round-trip: a value read
// through the view and written back unchanged must store what was stored
// (kube's annotations carry what the view has no field for).
//
// The view's own Strategy prepares and validates the served object; a nil
// Strategy uses ViewStrategy, which converts and runs Stored's defaulting
// and validation. Field selectors, tables and discovery are the view's
// (Resource.Fields, Resource.Table, Resource.Type).
type View struct {
	// Stored is the kind the objects are stored as. Required.
	Stored *scheme.Type
	// FromStored converts a stored object (decoded as Stored, its
	// resourceVersion set) to the served kind. It must not change in.
	// Required.
	FromStored func(in meta.Object) (meta.Object, error)
	// ToStored converts an object of the served kind to Stored. It must
	// not change in. Required.
	ToStored func(in meta.Object) (meta.Object, error)
}

// fromStored converts a stored object, keeping its resourceVersion and
// giving it the served kind.
func (v *View) fromStored(in meta.Object, served meta.GroupVersionKind) (meta.Object, error) {
	out, err := v.FromStored(in)
	if err != nil {
		return nil, err
	}
	out.GetTypeMeta().SetGroupVersionKind(served)
	out.GetObjectMeta().ResourceVersion = in.GetObjectMeta().ResourceVersion
	return out, nil
}

// toStored converts a served object, giving it the stored kind.
func (v *View) toStored(in meta.Object) (meta.Object, error) {
	out, err := v.ToStored(in)
	if err != nil {
		return nil, err
	}
	out.GetTypeMeta().SetGroupVersionKind(v.Stored.Kind)
	return out, nil
}

// check reports a View missing a required field.
func (v *View) check() error {
	if v.Stored == nil || v.FromStored == nil || v.ToStored == nil {
		return fmt.Errorf("apiserver: View needs Stored, FromStored and ToStored")
	}
	return nil
}

// ViewStrategy is the Strategy of a view without its own: it converts the
// served object to the stored kind, runs the stored kind's Strategy on it
// (defaults included, as kube-apiserver prepares and validates the
// internal object whatever version a request used) and converts the
// result back into obj. Errors name the stored kind's fields.
type ViewStrategy struct {
	View   *View
	Stored Strategy
}

var _ Strategy = (*ViewStrategy)(nil)

// NewViewStrategy returns the ViewStrategy of v over the stored kind's
// DefaultStrategy.
func NewViewStrategy(v *View) *ViewStrategy {
	return &ViewStrategy{View: v, Stored: NewDefaultStrategy(v.Stored)}
}

// convertBoth converts obj and old (nil for none) to the stored kind.
func (s *ViewStrategy) convertBoth(obj, old meta.Object) (meta.Object, meta.Object, error) {
	so, err := s.View.toStored(obj)
	if err != nil || old == nil {
		return so, nil, err
	}
	sold, err := s.View.toStored(old)
	return so, sold, err
}

// writeBack replaces *dst with the served form of stored.
func (s *ViewStrategy) writeBack(dst, stored meta.Object) {
	out, err := s.View.fromStored(stored, dst.GetTypeMeta().GroupVersionKind())
	if err != nil || reflect.TypeOf(out) != reflect.TypeOf(dst) {
		return
	}
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(out).Elem())
}

// PrepareForCreate runs the stored strategy's PrepareForCreate.
func (s *ViewStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	so, _, err := s.convertBoth(obj, nil)
	if err != nil {
		return
	}
	if s.View.Stored.Default != nil {
		s.View.Stored.Default(so)
	}
	s.Stored.PrepareForCreate(ctx, so)
	s.writeBack(obj, so)
}

// PrepareForUpdate runs the stored strategy's PrepareForUpdate.
func (s *ViewStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	so, sold, err := s.convertBoth(obj, old)
	if err != nil {
		return
	}
	if s.View.Stored.Default != nil {
		s.View.Stored.Default(so)
	}
	s.Stored.PrepareForUpdate(ctx, so, sold, subresource)
	s.writeBack(obj, so)
}

// Validate runs the stored strategy's Validate. An object the view
// cannot convert is invalid at apiVersion (a 422, nothing stored).
func (s *ViewStrategy) Validate(ctx context.Context, obj meta.Object) field.ErrorList {
	so, _, err := s.convertBoth(obj, nil)
	if err != nil {
		return s.unconvertible(obj, err)
	}
	return s.Stored.Validate(ctx, so)
}

// ValidateUpdate runs the stored strategy's ValidateUpdate.
func (s *ViewStrategy) ValidateUpdate(ctx context.Context, obj, old meta.Object) field.ErrorList {
	so, sold, err := s.convertBoth(obj, old)
	if err != nil {
		return s.unconvertible(obj, err)
	}
	return s.Stored.ValidateUpdate(ctx, so, sold)
}

// unconvertible is the validation error of an object the view cannot
// convert to the stored kind.
func (s *ViewStrategy) unconvertible(obj meta.Object, err error) field.ErrorList {
	return field.ErrorList{field.Invalid(field.NewPath("apiVersion"), obj.GetTypeMeta().APIVersion,
		fmt.Sprintf("cannot be stored as %s: %v", s.View.Stored.Kind.GroupVersion(), err))}
}
