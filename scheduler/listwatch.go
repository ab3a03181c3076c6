package scheduler

import (
	"context"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// clientLW adapts a typed client resource to informer.ListerWatcher, so
// the informers authenticate exactly as the client does.
type clientLW[T any, PT interface {
	*T
	meta.Object
}] struct {
	r *client.Resource[T, PT]
}

func newClientLW[T any, PT interface {
	*T
	meta.Object
}](c *client.Client) *clientLW[T, PT] {
	return &clientLW[T, PT]{r: client.For[T, PT](c, "")}
}

func listOpts(o informer.ListOptions) client.ListOptions {
	return client.ListOptions{LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector,
		ResourceVersion: o.ResourceVersion, Continue: o.Continue, Limit: o.Limit,
		AllowWatchBookmarks: o.AllowWatchBookmarks, TimeoutSeconds: o.TimeoutSeconds}
}

// List implements informer.ListerWatcher.
func (l *clientLW[T, PT]) List(ctx context.Context, opts informer.ListOptions) ([]PT, string, string, error) {
	list, err := l.r.List(ctx, listOpts(opts))
	if err != nil {
		return nil, "", "", err
	}
	items := make([]PT, len(list.Items))
	for i := range list.Items {
		items[i] = &list.Items[i]
	}
	return items, list.ResourceVersion, list.Continue, nil
}

// Watch implements informer.ListerWatcher; one goroutine relays the
// client's events until its channel closes or ctx ends.
func (l *clientLW[T, PT]) Watch(ctx context.Context, opts informer.ListOptions) (<-chan informer.Event[PT], error) {
	in, err := l.r.Watch(ctx, listOpts(opts))
	if err != nil {
		return nil, err
	}
	out := make(chan informer.Event[PT], 64)
	go func() {
		defer close(out)
		for ev := range in {
			select {
			case out <- informer.Event[PT]{Type: ev.Type, Object: ev.Object, Err: ev.Err}:
			case <-ctx.Done():
				for range in { //nolint:revive // drain so the client's goroutine ends
				}
				return
			}
		}
	}()
	return out, nil
}
