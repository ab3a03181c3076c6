package controller

import (
	"context"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// ResourceListerWatcher adapts a typed client.Resource to the informer's
// ListerWatcher, so that informers list and watch through the client (its
// authentication, rate limiting, retries and error decoding) rather than
// through a second HTTP stack. PT is the object's pointer type
// (*core.ConfigMap), the type the informer caches.
//
// The label and field selectors, when set, narrow every List and Watch;
// a selector the informer passes in its options wins. It is a small value,
// safe for concurrent use.
type ResourceListerWatcher[T any, PT interface {
	*T
	meta.Object
}] struct {
	res           *client.Resource[T, PT]
	labelSelector string
	fieldSelector string
}

var _ informer.ListerWatcher[*coordination.Lease] = (*ResourceListerWatcher[coordination.Lease, *coordination.Lease])(nil)

// NewListerWatcher returns a ListerWatcher over res in the namespace res
// addresses ("" for all namespaces), narrowed by the given label and field
// selectors ("" for none).
func NewListerWatcher[T any, PT interface {
	*T
	meta.Object
}](res *client.Resource[T, PT], labelSelector, fieldSelector string) *ResourceListerWatcher[T, PT] {
	return &ResourceListerWatcher[T, PT]{res: res, labelSelector: labelSelector, fieldSelector: fieldSelector}
}

func (lw *ResourceListerWatcher[T, PT]) options(o informer.ListOptions) client.ListOptions {
	return client.ListOptions{
		LabelSelector:       firstNonEmpty(o.LabelSelector, lw.labelSelector),
		FieldSelector:       firstNonEmpty(o.FieldSelector, lw.fieldSelector),
		ResourceVersion:     o.ResourceVersion,
		Continue:            o.Continue,
		Limit:               o.Limit,
		AllowWatchBookmarks: o.AllowWatchBookmarks,
		TimeoutSeconds:      o.TimeoutSeconds,
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// List returns one page of objects (pointers into the decoded list), the
// list's resourceVersion and the continue token. Errors are the client's.
func (lw *ResourceListerWatcher[T, PT]) List(ctx context.Context, opts informer.ListOptions) ([]PT, string, string, error) {
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

// Watch opens a watch through the client and converts its events. The
// converting goroutine belongs to ctx: it ends, closing the returned
// channel, when the client's stream ends or ctx is done.
func (lw *ResourceListerWatcher[T, PT]) Watch(ctx context.Context, opts informer.ListOptions) (<-chan informer.Event[PT], error) {
	in, err := lw.res.Watch(ctx, lw.options(opts))
	if err != nil {
		return nil, err
	}
	out := make(chan informer.Event[PT])
	go func() {
		defer close(out)
		for ev := range in {
			select {
			case out <- informer.Event[PT]{Type: ev.Type, Object: ev.Object, Err: ev.Err}:
			case <-ctx.Done():
				return // the client's pump sees ctx too and ends
			}
		}
	}()
	return out, nil
}
