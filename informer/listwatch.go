package informer

import (
	"context"

	"github.com/orkit/orkit/api/meta"
)

// ListOptions shapes one List or Watch call; the fields are the Kubernetes
// query parameters of the same names. Zero values are omitted.
type ListOptions struct {
	LabelSelector       string
	FieldSelector       string
	ResourceVersion     string
	Continue            string
	Limit               int64
	AllowWatchBookmarks bool
	TimeoutSeconds      int64
}

// Event types, as the watch wire format spells them.
const (
	Added    = meta.Added
	Modified = meta.Modified
	Deleted  = meta.Deleted
	Bookmark = meta.Bookmark
	Error    = meta.Error
)

// Event is one change seen by a watch. Type is one of Added, Modified,
// Deleted, Bookmark (Object carries only a resourceVersion) or Error
// (Object is the zero value and Err says why: the server's *meta.Status,
// 410 Gone when the resourceVersion is too old, or an error wrapping
// ErrDecode).
type Event[T any] struct {
	Type   string
	Object T
	Err    error
}

// ListerWatcher lists and watches one resource in one scope. The scope
// (namespace, selectors) is the implementation's; the reflector adds the
// paging and resourceVersion options. Implementations are safe for
// concurrent use.
type ListerWatcher[T any] interface {
	// List returns one page of objects, the list's resourceVersion and the
	// token for the next page ("" on the last). Errors from the server are
	// *meta.Status values (apierrors.IsGone for an expired continue token).
	List(ctx context.Context, opts ListOptions) (items []T, resourceVersion string, continueToken string, err error)
	// Watch streams changes after opts.ResourceVersion. The channel is
	// closed when the stream ends or ctx is done; an Error event, if any,
	// is the last one. An error status of the request itself (410 Gone,
	// 403, ...) is returned as err.
	Watch(ctx context.Context, opts ListOptions) (<-chan Event[T], error)
}
