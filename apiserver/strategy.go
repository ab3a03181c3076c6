package apiserver

import (
	"context"
	"maps"
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
// owned by the status subresource and moves metadata.generation as
// Kubernetes' strategy for the kind does.
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

// GenerationPolicy says how a kind's metadata.generation moves, as the
// kind's strategy in kube-apiserver moves it.
type GenerationPolicy int

const (
	// GenerationOnChange is custom resources' rule (and the zero value):
	// 1 on create, +1 on every update that changes anything but the
	// metadata and, with a status subresource, the status.
	GenerationOnChange GenerationPolicy = iota
	// GenerationOnSpec is 1 on create, +1 on every update that changes the
	// spec (Pod, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
	// PodDisruptionBudget).
	GenerationOnSpec
	// GenerationOnSpecOrAnnotations also counts annotation changes
	// (Deployment, whose annotations are copied to its ReplicaSets).
	GenerationOnSpecOrAnnotations
	// GenerationNone leaves the generation alone: a create keeps what the
	// client sent (usually nothing), an update keeps the stored value
	// (Service, Secret, ConfigMap, Node and the other built-ins).
	GenerationNone
	// GenerationOnChangeOrLabels is GenerationOnChange that also counts
	// label changes (EndpointSlice, whose consumers select by label).
	GenerationOnChangeOrLabels
)

// StatusMetadataPolicy says which object metadata a status update (the
// status subresource) may change, as the kind's status strategy in
// kube-apiserver: every one keeps the stored spec, and most keep none,
// some only part, of the stored metadata.
type StatusMetadataPolicy int

const (
	// StatusMetadataStored is custom resources' rule (and the zero
	// value): labels, annotations, finalizers and owner references are the
	// stored ones (kube's metav1.ResetObjectMetaForStatus).
	StatusMetadataStored StatusMetadataPolicy = iota
	// StatusMetadataUpdated lets a status update change them (Namespace,
	// Node, Service, the workload kinds but Deployment, ...).
	StatusMetadataUpdated
	// StatusMetadataUpdatedButLabels keeps the stored labels only
	// (Deployment).
	StatusMetadataUpdatedButLabels
	// StatusMetadataUpdatedButOwners keeps the stored owner references only
	// (Pod: old kubelets corrupted them through pods/status).
	StatusMetadataUpdatedButOwners
)

// DefaultStrategy implements Strategy from a scheme.Type. The zero value
// is not usable; make one with NewDefaultStrategy.
type DefaultStrategy struct {
	Type *scheme.Type
	// HasStatus says the kind's Status field is written only through the
	// status subresource.
	HasStatus bool
	// KeepStatusOnCreate keeps the status a create sends even though the
	// kind has a status subresource (Node: node agents register with it).
	KeepStatusOnCreate bool
	// Generation is how metadata.generation moves.
	Generation GenerationPolicy
	// StatusMetadata is the metadata a status update may change.
	StatusMetadata StatusMetadataPolicy
}

var _ Strategy = (*DefaultStrategy)(nil)

// NewDefaultStrategy returns the strategy for t; it has a status
// subresource when t lists one. A built-in kind gets Kubernetes' rules for
// its generation and status on create (builtinStrategyRules); any other
// kind those of custom resources.
func NewDefaultStrategy(t *scheme.Type) *DefaultStrategy {
	s := &DefaultStrategy{Type: t}
	for _, sub := range t.Subresources {
		if sub == "status" {
			s.HasStatus = true
		}
	}
	if r, ok := builtinStrategyRules[groupKind{Group: t.Kind.Group, Kind: t.Kind.Kind}]; ok {
		s.Generation, s.KeepStatusOnCreate, s.StatusMetadata = r.generation, r.keepStatusOnCreate, r.statusMetadata
	}
	return s
}

// PrepareForCreate clears the status of kinds with a status subresource
// (unless KeepStatusOnCreate) and sets generation 1 for kinds that track
// it.
func (s *DefaultStrategy) PrepareForCreate(_ context.Context, obj meta.Object) {
	if s.HasStatus && !s.KeepStatusOnCreate {
		clearField(obj, "Status")
	}
	if s.Generation != GenerationNone {
		obj.GetObjectMeta().Generation = 1
	}
}

// PrepareForUpdate keeps the old status on a main-resource update (when the
// kind has a status subresource), keeps the spec and the metadata
// StatusMetadata says on a status update, keeps the stored generation and
// bumps it as Generation says (never on a status update).
func (s *DefaultStrategy) PrepareForUpdate(_ context.Context, obj, old meta.Object, subresource string) {
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	switch {
	case subresource == "status":
		spec := fieldValue(old, "Spec")
		if spec.IsValid() {
			setField(obj, "Spec", spec)
		}
		switch s.StatusMetadata {
		case StatusMetadataStored:
			m.Labels, m.Annotations = om.Labels, om.Annotations
			m.Finalizers, m.OwnerReferences = om.Finalizers, om.OwnerReferences
		case StatusMetadataUpdatedButLabels:
			m.Labels = om.Labels
		case StatusMetadataUpdatedButOwners:
			m.OwnerReferences = om.OwnerReferences
		}
	case s.HasStatus:
		if st := fieldValue(old, "Status"); st.IsValid() {
			setField(obj, "Status", st)
		}
	}
	m.Generation = om.Generation
	if s.Generation == GenerationNone {
		return
	}
	if m.Generation == 0 {
		m.Generation = 1
	}
	if subresource != "status" && s.generationChanged(obj, old) {
		m.Generation++
	}
}

// generationChanged says obj differs from old in what the generation
// counts.
func (s *DefaultStrategy) generationChanged(obj, old meta.Object) bool {
	switch s.Generation {
	case GenerationOnSpecOrAnnotations:
		if !maps.Equal(obj.GetObjectMeta().Annotations, old.GetObjectMeta().Annotations) {
			return true
		}
		fallthrough
	case GenerationOnSpec:
		os, ns := fieldValue(old, "Spec"), fieldValue(obj, "Spec")
		return os.IsValid() && !reflect.DeepEqual(os.Interface(), ns.Interface())
	case GenerationOnChangeOrLabels:
		if !maps.Equal(obj.GetObjectMeta().Labels, old.GetObjectMeta().Labels) {
			return true
		}
		fallthrough
	case GenerationOnChange:
		return !equalBesideMetadata(obj, old, s.HasStatus)
	}
	return false
}

// equalBesideMetadata compares the top-level fields of two objects of one
// kind, leaving out the type and object metadata and, when skipStatus,
// the status.
func equalBesideMetadata(a, b meta.Object, skipStatus bool) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Kind() != reflect.Pointer || vb.Type() != va.Type() || va.Elem().Kind() != reflect.Struct {
		return reflect.DeepEqual(a, b)
	}
	va, vb = va.Elem(), vb.Elem()
	for i := range va.NumField() {
		switch f := va.Type().Field(i); {
		case f.Anonymous && (f.Type == reflect.TypeOf(meta.TypeMeta{})):
		case f.Name == "ObjectMeta", f.Name == "TypeMeta":
		case f.Name == "Status" && skipStatus:
		case !f.IsExported():
		default:
			if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
				return false
			}
		}
	}
	return true
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
