package apiserver

import (
	"context"
	"reflect"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Strategy is how one resource's objects are prepared, validated and
// canonicalised on their way into storage. Built-in and user-defined kinds
// go through the same code: most use DefaultStrategy, which takes
// defaulting and validation from the scheme, treats the Status field as
// owned by the status subresource and bumps metadata.generation on Spec
// changes only.
type Strategy interface {
	// PrepareForCreate clears or sets what a client does not control on
	// create (status, generation).
	PrepareForCreate(ctx context.Context, obj meta.Object)
	// PrepareForUpdate does the same for an update of obj replacing old; for
	// a status update (subresource "status") it keeps everything but status.
	PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string)
	// Validate checks a new object.
	Validate(ctx context.Context, obj meta.Object) field.ErrorList
	// ValidateUpdate checks obj as a replacement of old.
	ValidateUpdate(ctx context.Context, obj, old meta.Object) field.ErrorList
}

// FieldsFunc returns the fields of obj that field selectors may use;
// metadata.name and metadata.namespace are always there.
type FieldsFunc func(obj meta.Object) fields.Set

// FieldsFromJSONFunc returns the metadata of an object and the fields its
// FieldsFunc would give, read from the object's stored JSON. It must fail
// on a value that is not valid JSON (json.Unmarshal does): the watch cache
// relies on it to send the value as it is.
type FieldsFromJSONFunc func(stored []byte) (*meta.ObjectMeta, fields.Set, error)

// DefaultStrategy implements Strategy from a scheme.Type. The zero value
// is not usable; make one with NewDefaultStrategy.
type DefaultStrategy struct {
	Type *scheme.Type
	// HasStatus says the kind's Status field is written only through the
	// status subresource.
	HasStatus bool
}

var _ Strategy = (*DefaultStrategy)(nil)

// NewDefaultStrategy returns the strategy for t; it has a status
// subresource when t lists one.
func NewDefaultStrategy(t *scheme.Type) *DefaultStrategy {
	s := &DefaultStrategy{Type: t}
	for _, sub := range t.Subresources {
		if sub == "status" {
			s.HasStatus = true
		}
	}
	return s
}

// PrepareForCreate clears the status of kinds with a status subresource
// and sets generation 1.
func (s *DefaultStrategy) PrepareForCreate(_ context.Context, obj meta.Object) {
	if s.HasStatus {
		clearField(obj, "Status")
	}
	obj.GetObjectMeta().Generation = 1
}

// PrepareForUpdate keeps the old status on a main-resource update (when the
// kind has a status subresource), keeps everything but the status on a
// status update, and bumps the generation when Spec changed.
func (s *DefaultStrategy) PrepareForUpdate(_ context.Context, obj, old meta.Object, subresource string) {
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	switch {
	case subresource == "status":
		spec := fieldValue(old, "Spec")
		if spec.IsValid() {
			setField(obj, "Spec", spec)
		}
		m.Labels, m.Annotations = om.Labels, om.Annotations
		m.Finalizers, m.OwnerReferences = om.Finalizers, om.OwnerReferences
	case s.HasStatus:
		if st := fieldValue(old, "Status"); st.IsValid() {
			setField(obj, "Status", st)
		}
	}
	m.Generation = om.Generation
	if m.Generation == 0 {
		m.Generation = 1
	}
	if os, ns := fieldValue(old, "Spec"), fieldValue(obj, "Spec"); os.IsValid() && !reflect.DeepEqual(os.Interface(), ns.Interface()) {
		m.Generation++
	}
}

// Validate runs the scheme's validation.
func (s *DefaultStrategy) Validate(_ context.Context, obj meta.Object) field.ErrorList {
	if s.Type.Validate == nil {
		return nil
	}
	return s.Type.Validate(obj)
}

// ValidateUpdate runs the scheme's update validation, or Validate.
func (s *DefaultStrategy) ValidateUpdate(ctx context.Context, obj, old meta.Object) field.ErrorList {
	if s.Type.ValidateUpdate != nil {
		return s.Type.ValidateUpdate(obj, old)
	}
	return s.Validate(ctx, obj)
}

// fieldValue returns the struct field name of obj, or the invalid Value.
func fieldValue(obj meta.Object, name string) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName(name)
}

func setField(obj meta.Object, name string, val reflect.Value) {
	if f := fieldValue(obj, name); f.IsValid() && f.CanSet() {
		f.Set(val)
	}
}

func clearField(obj meta.Object, name string) {
	if f := fieldValue(obj, name); f.IsValid() && f.CanSet() {
		f.Set(reflect.Zero(f.Type()))
	}
}
