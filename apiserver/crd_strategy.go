package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"reflect"

	"github.com/orkit/orkit/api/apiextensions"
	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// customVersion is one served version of a CustomResourceDefinition,
// compiled: what its strategy, defaulting, table and scale read. It is
// immutable once built and shared by the requests of that version.
type customVersion struct {
	kind       meta.GroupVersionKind
	namespaced bool
	schema     *schema.Schema
	props      *schema.JSONSchemaProps // the version's openAPIV3Schema as apply types it (fieldSchema)
	defs       map[string]*schema.JSONSchemaProps
	status     bool
	scale      *apiextensions.CustomResourceSubresourceScale
	columns    *apiextensions.PrinterColumns
}

// customStrategy is the Strategy of a custom resource, as kube-apiserver's
// customResourceStrategy: generation 1 on create and +1 on every change
// but the metadata (and the status, with a status subresource); the status
// written only through /status when the version has that subresource;
// validation of the metadata, the schema (with CEL rules and ratcheting on
// update) and the scale paths.
type customStrategy struct{ v *customVersion }

var (
	_ Strategy            = customStrategy{}
	_ FieldSchemaProvider = customStrategy{}
)

// FieldSchema is the version's openAPIV3Schema: server-side apply merges
// custom resources and records their owners by it.
func (s customStrategy) FieldSchema() (*schema.JSONSchemaProps, map[string]*schema.JSONSchemaProps) {
	return s.v.props, s.v.defs
}

// PrepareForCreate drops the status of a version with a status
// subresource and sets generation 1.
func (s customStrategy) PrepareForCreate(_ context.Context, obj meta.Object) {
	o := obj.(*CustomObject)
	if s.v.status {
		delete(o.Content, "status")
	}
	o.Generation = 1
}

// PrepareForUpdate keeps what the request may not change: everything but
// the status on a status update (managedFields aside), the status on any
// other update of a version with a status subresource; it bumps the
// generation when anything counted changed.
func (s customStrategy) PrepareForUpdate(_ context.Context, obj, old meta.Object, subresource string) {
	o, prev := obj.(*CustomObject), old.(*CustomObject)
	if subresource == "status" {
		status, ok := o.Content["status"]
		managed := o.ManagedFields
		o.ObjectMeta = prev.ObjectMeta
		o.ManagedFields = managed
		o.Content = maps.Clone(prev.Content)
		if o.Content == nil {
			o.Content = map[string]any{}
		}
		delete(o.Content, "status")
		if ok {
			o.Content["status"] = status
		}
		return
	}
	if s.v.status {
		if st, ok := prev.Content["status"]; ok {
			if o.Content == nil {
				o.Content = map[string]any{}
			}
			o.Content["status"] = st
		} else {
			delete(o.Content, "status")
		}
	}
	o.Generation = prev.Generation
	if o.Generation == 0 {
		o.Generation = 1
	}
	if !s.sameBesideStatus(o.Content, prev.Content) {
		o.Generation++
	}
}

// sameBesideStatus compares two objects' fields other than metadata,
// leaving the status out when the version has a status subresource.
func (s customStrategy) sameBesideStatus(a, b map[string]any) bool {
	if s.v.status {
		a, b = maps.Clone(a), maps.Clone(b)
		delete(a, "status")
		delete(b, "status")
	}
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Validate checks a new custom resource: its metadata, its schema (value
// validations, embedded resources, list types, CEL rules) and its scale
// paths.
func (s customStrategy) Validate(ctx context.Context, obj meta.Object) field.ErrorList {
	o := obj.(*CustomObject)
	errs := validation.ValidateObjectMeta(&o.ObjectMeta, s.v.namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	m := o.Object()
	errs = append(errs, s.v.schema.Validate(ctx, m)...)
	return append(errs, apiextensions.ValidateScale(m, s.v.scale)...)
}

// ValidateUpdate checks obj replacing old: the metadata update rules, the
// schema with transition rules and ratcheting, the scale paths.
func (s customStrategy) ValidateUpdate(ctx context.Context, obj, old meta.Object) field.ErrorList {
	o, prev := obj.(*CustomObject), old.(*CustomObject)
	errs := validation.ValidateObjectMetaUpdate(&o.ObjectMeta, &prev.ObjectMeta, field.NewPath("metadata"))
	m := o.Object()
	errs = append(errs, s.v.schema.ValidateUpdate(ctx, m, prev.Object())...)
	return append(errs, apiextensions.ValidateScale(m, s.v.scale)...)
}

// defaultObject prunes what the schema does not specify and applies its
// defaults (Type.Default: on create and on every update).
func (v *customVersion) defaultObject(obj meta.Object) {
	o := obj.(*CustomObject)
	m := o.Object()
	_, _ = v.schema.Prune(m) // a bad embedded resource is reported by Validate
	v.schema.Default(m)
	o.setObject(m)
}

// defaultStored applies the schema's defaults to a stored object, as
// kube-apiserver defaults custom resources read from etcd: an object
// stored before a default was added to the CRD is served with it. It
// returns stored itself when nothing changes or it does not decode (the
// reader reports that).
func (v *customVersion) defaultStored(stored []byte) []byte {
	var o CustomObject
	if err := json.Unmarshal(stored, &o); err != nil {
		return stored
	}
	m := o.Object()
	v.schema.Default(m)
	o.setObject(m)
	out, err := json.Marshal(&o)
	if err != nil || bytes.Equal(out, stored) {
		return stored
	}
	return out
}

// pruneBody prunes a custom resource decoded from a request body and
// returns the paths of the fields it removed (unknown fields, for
// fieldValidation).
func (v *customVersion) pruneBody(o *CustomObject) []string {
	m := o.Object()
	paths, _ := v.schema.Prune(m)
	o.setObject(m)
	return paths
}
