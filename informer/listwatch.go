package informer

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// ListOptions shapes one List or Watch call. It is the client's type: the
// fields are the Kubernetes query parameters of the same names, and zero
// values are omitted.
type ListOptions = client.ListOptions

// Event types, as the watch wire format spells them.
const (
	Added    = meta.Added
	Modified = meta.Modified
	Deleted  = meta.Deleted
	Bookmark = meta.Bookmark
	Error    = meta.Error
)

// Event is one change seen by a watch; it is the client's type. Type is one
// of Added, Modified, Deleted, Bookmark (Object carries only a
// resourceVersion) or Error (Object is the zero value and Err says why: the
// server's *meta.Status, 410 reason Expired when the resourceVersion is too
// old, or an error wrapping client.ErrDecode).
type Event[T any] = client.Event[T]

// ListerWatcher lists and watches one resource in one scope: the one seam
// between the informers and the API server. The scope (namespace,
// selectors) is the implementation's; the reflector adds the paging and
// resourceVersion options. ResourceListerWatcher implements it over the
// client; tests feed informers through their own. Implementations are safe
// for concurrent use.
type ListerWatcher[T any] interface {
	// List returns one page of objects, the list's resourceVersion and the
	// token for the next page ("" on the last). Errors from the server wrap
	// their *meta.Status (a 410 for an expired continue token).
	List(ctx context.Context, opts ListOptions) (items []T, resourceVersion string, continueToken string, err error)
	// Watch streams changes after opts.ResourceVersion. The channel is
	// closed when the stream ends or ctx is done; an Error event, if any,
	// is the last one. An error status of the request itself (410, 403,
	// ...) is returned as err.
	Watch(ctx context.Context, opts ListOptions) (<-chan Event[T], error)
}

// ResourceListerWatcher is the ListerWatcher over a typed (or dynamic)
// client.Resource: informers list and watch through the client, with its
// authentication, rate limiting, retries and error decoding (which keeps
// the server's Status reason). PT is the object's pointer type
// (*core.ConfigMap), the type the informer caches.
//
// The label and field selectors, when set, narrow every List and Watch; a
// selector the caller passes in its options wins. It is a small value,
// safe for concurrent use; it owns no goroutine beyond the client's one
// per watch.
type ResourceListerWatcher[T any, PT interface {
	*T
	meta.Object
}] struct {
	res           *client.Resource[T, PT]
	labelSelector string
	fieldSelector string
}

var _ ListerWatcher[*core.Pod] = (*ResourceListerWatcher[core.Pod, *core.Pod])(nil)

// NewListerWatcher returns a ListerWatcher over res in the namespace res
// addresses ("" for all namespaces), narrowed by the given label and field
// selectors ("" for none).
func NewListerWatcher[T any, PT interface {
	*T
	meta.Object
}](res *client.Resource[T, PT], labelSelector, fieldSelector string) *ResourceListerWatcher[T, PT] {
	return &ResourceListerWatcher[T, PT]{res: res, labelSelector: labelSelector, fieldSelector: fieldSelector}
}

func (lw *ResourceListerWatcher[T, PT]) options(o ListOptions) ListOptions {
	if o.LabelSelector == "" {
		o.LabelSelector = lw.labelSelector
	}
	if o.FieldSelector == "" {
		o.FieldSelector = lw.fieldSelector
	}
	return o
}

// List returns one page of objects (pointers into the decoded list), the
// list's resourceVersion and the continue token. Errors are the client's.
func (lw *ResourceListerWatcher[T, PT]) List(ctx context.Context, opts ListOptions) ([]PT, string, string, error) {
	l, err := lw.res.List(ctx, lw.options(opts))
	if err != nil {
		return nil, "", "", err
	}
	out := make([]PT, len(l.Items))
	for i := range l.Items {
		out[i] = PT(&l.Items[i])
	}
	return out, l.ResourceVersion, l.Continue, nil
}

// Watch opens a watch through the client and returns its events; the
// client's one goroutine per watch ends, closing the channel, when the
// stream ends or ctx is done.
func (lw *ResourceListerWatcher[T, PT]) Watch(ctx context.Context, opts ListOptions) (<-chan Event[PT], error) {
	return lw.res.Watch(ctx, lw.options(opts))
}
