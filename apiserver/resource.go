package apiserver

import (
	"context"
	"net/http"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Resource is one resource the server serves: its kind from the scheme,
// the strategy that prepares and validates it, the extra fields its field
// selectors may use, how kubectl's table shows it, and any subresources
// beyond status. Built-in and user-defined kinds are registered the same
// way (Server.Register).
type Resource struct {
	Type     *scheme.Type
	Strategy Strategy
	// Fields adds selectable fields (e.g. spec.nodeName for pods). The
	// labels it sets for a zero object, with metadata.name (and
	// metadata.namespace for namespaced kinds, or when Fields is nil) are
	// the only ones field selectors may use: any other is a 400, as in
	// kube-apiserver. It must set every label whatever the object holds.
	Fields FieldsFunc
	// FieldsFromJSON, when set with Fields, reads an object's metadata and
	// the same fields straight from its stored JSON (one partial decode);
	// the watch cache then decodes the object itself only when something
	// reads it. It must agree with Fields.
	FieldsFromJSON FieldsFromJSONFunc
	// Table returns the columns and one row per object for `kubectl get`;
	// nil shows Name and Age, except on a resource served only for create
	// (Verbs just "create": bindings, access and token reviews), which has
	// no table: a Table asked of it is 406 Not Acceptable, as in
	// kube-apiserver, unless the Accept header offers another form.
	Table *TableConvertor
	// Subresources serves subresources other than "status", keyed by name.
	Subresources map[string]SubresourceHandler
	// ObjectSubresources are subresources served like "status": views of
	// the whole object read with get and written with update or patch
	// through the update pipeline, the Strategy told the subresource's
	// name (certificatesigningrequests/approval).
	ObjectSubresources []string
	// Verbs limits the verbs served (e.g. only "create" for bindings and
	// access reviews); nil serves all.
	Verbs []string
	// CreateFunc, when set, replaces the create pipeline (access reviews,
	// which are answered and not stored).
	CreateFunc func(ctx context.Context, req *Request, obj meta.Object) (meta.Object, error)
	// Scale, when set, serves the scale subresource.
	Scale *ScaleAccessor
	// Warning, when set, is sent as a Warning header with every response
	// about the resource (a deprecated custom resource version).
	Warning string
	// StoredAs, when set, is the kind objects are stored as: the storage
	// version of a custom resource served in several versions (their
	// conversion is None: only apiVersion differs). Nil stores Type.Kind.
	StoredAs *meta.GroupVersionKind
	// View, when set, serves Type as a view of another kind's objects,
	// stored as that kind and converted on every read and write (see
	// View); its Strategy defaults to NewViewStrategy(View).
	View *View
	// OnRead, when set, rewrites a stored value before it is served or
	// decoded, returning it unchanged when there is nothing to do: custom
	// resources get their schema's defaults on read, so a default added
	// to a CRD shows on objects stored before it, as in Kubernetes.
	OnRead func(stored []byte) []byte
	// OpenAPI, when set, gives the OpenAPI v3 component schemas of the
	// kind (keyed by name) and the name of the kind's own, instead of the
	// schemas derived from the Go type (custom resources).
	OpenAPI func() (schemas map[string]map[string]any, name string)
}

// SubresourceHandler serves one subresource of one object
// (pods/binding, pods/log, namespaces/finalize, ...). The request has been
// authenticated and authorized for that subresource.
type SubresourceHandler interface {
	ServeSubresource(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request)
}

// SubresourceFunc adapts a function to SubresourceHandler.
type SubresourceFunc func(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request)

// ServeSubresource calls f.
func (f SubresourceFunc) ServeSubresource(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	f(ctx, w, r, req)
}

// ScaleAccessor reads and writes the replica count of a scalable kind.
type ScaleAccessor struct {
	// Get returns spec.replicas, status.replicas and the selector string.
	Get func(obj meta.Object) (specReplicas, statusReplicas int32, selector string)
	// Set sets spec.replicas.
	Set func(obj meta.Object, replicas int32)
}
