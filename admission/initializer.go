package admission

import (
	"context"

	"github.com/orkit/orkit/api/meta"
)

// Initializer is a Go initializer: a named step that completes new objects
// before anyone else sees them. When its Name heads
// metadata.initializers.pending of an object, the Runner calls Initialize.
//
// Name returns the fully qualified initializer name as it appears in
// InitializerConfiguration objects ("sidecar.example.com").
//
// Initialize may change obj in place (a private copy the Runner owns);
// the Runner then removes the initializer from pending and writes the
// object. Returning an error fails the object: the Runner records a
// Failure Status in metadata.initializers.result and the API server
// deletes it; return a *meta.Status to choose the reason and code.
// Initialize may be called again for the same object when a write
// conflicts, so it must be idempotent. It is called from the Runner's
// worker goroutines, concurrently for different objects, and must return
// when ctx is cancelled.
type Initializer interface {
	Name() string
	Initialize(ctx context.Context, obj meta.Object) error
}

// InitializerFunc adapts a name and a function to Initializer.
type InitializerFunc struct {
	InitializerName string
	Func            func(ctx context.Context, obj meta.Object) error
}

var _ Initializer = InitializerFunc{}

// Name returns f.InitializerName.
func (f InitializerFunc) Name() string { return f.InitializerName }

// Initialize calls f.Func.
func (f InitializerFunc) Initialize(ctx context.Context, obj meta.Object) error {
	return f.Func(ctx, obj)
}

// ObjectEvent is one change of an object seen through ObjectSource.Watch.
// Type is meta.Added, meta.Modified or meta.Deleted. Object is shared with
// the source: the Runner never changes it.
type ObjectEvent struct {
	Type   string
	Object meta.Object
}

// ObjectSource is what the Runner reads and writes objects through: the
// API server in-process, or a client.
//
// Watch streams the objects of gvr in every namespace, uninitialized ones
// included when includeUninitialized is true. It starts with an Added
// event for every object that exists, then reports changes in
// resourceVersion order. The channel is closed when ctx is cancelled or
// the watch ends for another reason; the Runner then watches again.
//
// Get returns the current object, with an error for which
// api/errors.IsNotFound holds when it is gone.
//
// Update writes obj if its resourceVersion is still the stored one and
// returns the stored result; otherwise it returns an error for which
// api/errors.IsConflict holds (or IsNotFound when the object is gone).
//
// Implementations must be safe for concurrent use.
type ObjectSource interface {
	Watch(ctx context.Context, gvr meta.GroupVersionResource, includeUninitialized bool) (<-chan ObjectEvent, error)
	Get(ctx context.Context, gvr meta.GroupVersionResource, namespace, name string) (meta.Object, error)
	Update(ctx context.Context, gvr meta.GroupVersionResource, obj meta.Object) (meta.Object, error)
}
