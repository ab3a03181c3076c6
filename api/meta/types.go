package meta

// TypeMeta names an object's kind and API version on the wire.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetTypeMeta returns the receiver; embedding TypeMeta gives a kind the
// method that Object requires.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// GroupVersionKind returns the group, version and kind named by t.
func (t *TypeMeta) GroupVersionKind() GroupVersionKind {
	gv := ParseGroupVersion(t.APIVersion)
	return gv.WithKind(t.Kind)
}

// SetGroupVersionKind sets Kind and APIVersion from gvk.
func (t *TypeMeta) SetGroupVersionKind(gvk GroupVersionKind) {
	t.Kind = gvk.Kind
	t.APIVersion = gvk.GroupVersion().String()
}

// ObjectMeta is the metadata every persisted object carries.
type ObjectMeta struct {
	// Name is unique within a namespace (or the cluster, for
	// cluster-scoped kinds). It is required on create unless
	// generateName is set, and cannot be updated.
	Name string `json:"name,omitempty"`
	// GenerateName is a prefix from which the server makes a unique
	// name when name is empty: a random suffix is appended.
	GenerateName string `json:"generateName,omitempty"`
	// Namespace is the namespace the object lives in; empty for
	// cluster-scoped kinds. It cannot be updated.
	Namespace string `json:"namespace,omitempty"`
	// SelfLink is a deprecated URL of the object; the server leaves it
	// empty.
	SelfLink string `json:"selfLink,omitempty"`
	// UID is set by the server on create and never reused for another
	// object: it tells two objects of the same name apart in time.
	// Read-only.
	UID UID `json:"uid,omitempty"`
	// ResourceVersion is an opaque value the server changes on every
	// write; clients send it back for optimistic concurrency and use it
	// to resume watches. Read-only.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Generation counts changes to the desired state (the spec); the
	// server sets it. Read-only.
	Generation int64 `json:"generation,omitempty"`
	// CreationTimestamp is a timestamp representing the server time when
	// this object was created, in RFC 3339 form at second precision. Set
	// by the server on create; read-only, null in lists.
	CreationTimestamp Time `json:"creationTimestamp,omitzero"`
	// DeletionTimestamp is when the object will be deleted: set by the
	// server when a graceful delete is requested, after which the object
	// is gone once its finalizers are empty and the grace period has
	// passed. Read-only.
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty"`
	// DeletionGracePeriodSeconds is the grace period of a requested
	// delete, set with deletionTimestamp. Read-only.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty"`
	// Labels are key/value pairs that selectors match (replica sets,
	// services, kubectl -l).
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are key/value pairs for tools and controllers to keep
	// data on the object; they are not used for selection.
	Annotations map[string]string `json:"annotations,omitempty"`
	// OwnerReferences list the objects this one depends on; when every
	// owner is gone the garbage collector deletes it.
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty"`
	// Initializers, while pending is not empty, hide a new object from
	// ordinary reads until each initializer has acted on it.
	Initializers *Initializers `json:"initializers,omitempty"`
	// Finalizers must all be removed before a deleted object is removed
	// from storage; each names a controller's cleanup.
	Finalizers []string `json:"finalizers,omitempty"`
	// ManagedFields records which manager set which fields, for
	// server-side apply. Clients rarely need to read or write it.
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// GetObjectMeta returns the receiver; embedding ObjectMeta gives a kind the
// method that Object requires.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// UID is a unique identifier of an object over its whole lifetime.
type UID string

// Initializers tracks the initializers still to act on an object. While
// Pending is not empty the object is hidden from ordinary reads.
type Initializers struct {
	Pending []Initializer `json:"pending"`
	Result  *Status       `json:"result,omitempty"`
}

// Initializer names one pending initializer.
type Initializer struct {
	Name string `json:"name"`
}

// OwnerReference points from a dependent to its owner, for garbage collection.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                UID    `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ManagedFieldsEntry records the fields one manager owns, as
// metadata.managedFields carries it on the wire: the API server keeps them
// on every write and for server-side apply (apiserver/fieldmanager).
// Operation is "Apply" or "Update", FieldsType "FieldsV1", and FieldsV1
// the owned fields in Kubernetes' f:/k:/v:/i: encoding.
type ManagedFieldsEntry struct {
	Manager     string  `json:"manager,omitempty"`
	Operation   string  `json:"operation,omitempty"`
	APIVersion  string  `json:"apiVersion,omitempty"`
	Time        *Time   `json:"time,omitempty"`
	FieldsType  string  `json:"fieldsType,omitempty"`
	FieldsV1    RawJSON `json:"fieldsV1,omitempty"`
	Subresource string  `json:"subresource,omitempty"`
}

// ListMeta is the metadata of a list response.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty"`
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// GetListMeta returns the receiver; embedding ListMeta gives a list the
// method that ListObject requires.
func (m *ListMeta) GetListMeta() *ListMeta { return m }

// List is the wire shape of every list kind (PodList, NodeList, ...):
// define a list as `type PodList = meta.List[Pod]`.
type List[T any] struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Items    []T `json:"items"`
}

// Object is implemented by every top-level kind through its embedded
// TypeMeta and ObjectMeta (use a pointer: *core.Pod is an Object).
type Object interface {
	GetTypeMeta() *TypeMeta
	GetObjectMeta() *ObjectMeta
}

// ListObject is implemented by every list kind through List.
type ListObject interface {
	GetTypeMeta() *TypeMeta
	GetListMeta() *ListMeta
}

// OwnerReferences ---------------------------------------------------------

// ControllerOf returns the owner reference with Controller set, or nil.
func ControllerOf(m *ObjectMeta) *OwnerReference {
	for i := range m.OwnerReferences {
		if r := &m.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// HasFinalizer reports whether m lists the finalizer f.
func (m *ObjectMeta) HasFinalizer(f string) bool {
	for _, x := range m.Finalizers {
		if x == f {
			return true
		}
	}
	return false
}

// IsInitialized reports whether no initializer is pending on m.
func (m *ObjectMeta) IsInitialized() bool {
	return m.Initializers == nil || len(m.Initializers.Pending) == 0
}
