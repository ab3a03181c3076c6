package core

import "github.com/orkit/orkit/api/meta"

// ObjectReference points at another object, possibly a field inside it.
// Binding targets, Event subjects, PersistentVolume claim references and
// Endpoints target references use it.
type ObjectReference struct {
	Kind            string   `json:"kind,omitempty"`
	Namespace       string   `json:"namespace,omitempty"`
	Name            string   `json:"name,omitempty"`
	UID             meta.UID `json:"uid,omitempty"`
	APIVersion      string   `json:"apiVersion,omitempty"`
	ResourceVersion string   `json:"resourceVersion,omitempty"`
	// FieldPath names a part of the object, such as
	// "spec.containers{web}" for one container of a pod.
	FieldPath string `json:"fieldPath,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// TypedLocalObjectReference names an object of any kind in the same namespace.
type TypedLocalObjectReference struct {
	APIGroup *string `json:"apiGroup"`
	Kind     string  `json:"kind"`
	Name     string  `json:"name"`
}

// TypedObjectReference names an object of any kind, possibly in another namespace.
type TypedObjectReference struct {
	APIGroup  *string `json:"apiGroup"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Namespace *string `json:"namespace,omitempty"`
}

// NewObjectReference returns a reference to obj, taking its kind and API
// version from obj's TypeMeta (set them first if the object came from Go).
func NewObjectReference(obj meta.Object) ObjectReference {
	tm, om := obj.GetTypeMeta(), obj.GetObjectMeta()
	return ObjectReference{
		Kind:            tm.Kind,
		APIVersion:      tm.APIVersion,
		Namespace:       om.Namespace,
		Name:            om.Name,
		UID:             om.UID,
		ResourceVersion: om.ResourceVersion,
	}
}
