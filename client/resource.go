package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/autoscaling"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// PatchType is the content type of a patch body.
type PatchType string

// The patch types the API server accepts.
const (
	JSONPatchType           PatchType = "application/json-patch+json"
	MergePatchType          PatchType = "application/merge-patch+json"
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
	ApplyPatchType          PatchType = "application/apply-patch+yaml"
)

// ListOptions select and page the objects of a List, Watch or
// DeleteCollection. The zero value lists everything, most recent.
type ListOptions struct {
	// LabelSelector and FieldSelector in their string forms ("app=web",
	// "spec.nodeName=node-1").
	LabelSelector, FieldSelector string
	// Limit and Continue page a list: at most Limit items, and the token
	// of the previous page's ListMeta.Continue.
	Limit    int64
	Continue string
	// ResourceVersion: for a list "" means the most recent (from storage),
	// "0" anything the server has cached; for a watch, where to start
	// ("" or "0" start with the current objects as ADDED events).
	ResourceVersion      string
	ResourceVersionMatch string
	// TimeoutSeconds ends a watch after that long (the server may end it
	// sooner).
	TimeoutSeconds int64
	// AllowWatchBookmarks asks for BOOKMARK events on a watch.
	AllowWatchBookmarks bool
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("labelSelector", o.LabelSelector)
	set("fieldSelector", o.FieldSelector)
	set("continue", o.Continue)
	set("resourceVersion", o.ResourceVersion)
	set("resourceVersionMatch", o.ResourceVersionMatch)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	return q
}

// Resource is typed access to one resource in one namespace (or across
// namespaces, or a cluster-scoped resource, when the namespace is "").
// T is the object's struct (core.Pod), PT its pointer (*core.Pod). Make one
// with For, or DynamicFor for untyped access. A Resource is a cheap value
// safe for concurrent use; every method blocks until the server answers
// or ctx ends. Errors from the server wrap its *meta.Status (use the
// api/errors predicates); objects that fail client-side validation return
// a *ValidationError before anything is sent.
type Resource[T any, PT interface {
	*T
	meta.Object
}] struct {
	c          *Client
	ns         string
	gvr        meta.GroupVersionResource
	gvk        meta.GroupVersionKind
	namespaced bool
	typ        *scheme.Type // for validation; nil when the kind is not in the scheme
	err        error        // a resolution error, returned by every method
}

// For returns typed access to the resource of T in namespace ns, resolved
// through the client's scheme (client.For[core.Pod](c, "default")). ns is
// ignored for cluster-scoped kinds. When T is not registered every method
// returns an error wrapping ErrNotRegistered.
func For[T any, PT interface {
	*T
	meta.Object
}](c *Client, ns string) *Resource[T, PT] {
	r := &Resource[T, PT]{c: c, ns: ns}
	t, err := c.typeOf(reflect.TypeOf(PT(nil)))
	if err != nil {
		r.err = err
		return r
	}
	r.typ, r.gvr, r.gvk, r.namespaced = t, t.GroupVersionResource(), t.Kind, t.Namespaced
	if !r.namespaced {
		r.ns = ""
	}
	return r
}

// GroupVersionResource returns the resource addressed.
func (r *Resource[T, PT]) GroupVersionResource() meta.GroupVersionResource { return r.gvr }

// Namespace returns the namespace addressed ("" for all, or cluster scope).
func (r *Resource[T, PT]) Namespace() string { return r.ns }

// path returns the REST path of the resource in ns, of name and sub when
// given. Names are checked so that no name can address another path.
func (r *Resource[T, PT]) path(ns, name, sub string) (string, error) {
	if r.err != nil {
		return "", r.err
	}
	return resourcePath(r.gvr, r.namespaced, ns, name, sub)
}

func resourcePath(gvr meta.GroupVersionResource, namespaced bool, ns, name, sub string) (string, error) {
	var b strings.Builder
	if gvr.Group == "" {
		b.WriteString("/api/" + gvr.Version)
	} else {
		b.WriteString("/apis/" + gvr.Group + "/" + gvr.Version)
	}
	if namespaced && ns != "" {
		if err := checkSegment("namespace", ns); err != nil {
			return "", err
		}
		b.WriteString("/namespaces/" + ns)
	}
	b.WriteString("/" + gvr.Resource)
	if name != "" {
		if err := checkSegment("name", name); err != nil {
			return "", err
		}
		b.WriteString("/" + name)
	}
	if sub != "" {
		b.WriteString("/" + sub)
	}
	return b.String(), nil
}

// checkSegment rejects values that would change the path they are put in.
func checkSegment(what, v string) error {
	if v == "." || v == ".." || strings.ContainsAny(v, "/%?#") {
		return fmt.Errorf("%w: %s %q may not contain '/', '%%', '?' or '#' nor be '.' or '..'", ErrRequest, what, v)
	}
	return nil
}

func requireName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: a name is required", ErrRequest)
	}
	return nil
}

// objectNamespace returns the namespace a write of m goes to: the
// Resource's, else the object's; the two must agree.
func (r *Resource[T, PT]) objectNamespace(m *meta.ObjectMeta) (string, error) {
	if !r.namespaced {
		return "", nil
	}
	switch {
	case r.ns == "":
		return m.Namespace, nil
	case m.Namespace != "" && m.Namespace != r.ns:
		return "", fmt.Errorf("%w: object namespace %q does not match the client's %q", ErrRequest, m.Namespace, r.ns)
	}
	return r.ns, nil
}

// encode returns obj as JSON with apiVersion and kind filled in, without
// modifying obj.
func (r *Resource[T, PT]) encode(obj PT) ([]byte, error) {
	cp := *obj
	tm := PT(&cp).GetTypeMeta()
	if tm.Kind == "" && tm.APIVersion == "" {
		tm.SetGroupVersionKind(r.gvk)
	}
	b, err := json.Marshal(PT(&cp))
	if err != nil {
		return nil, fmt.Errorf("%w: encode %s: %w", ErrRequest, r.gvk.Kind, err)
	}
	return b, nil
}

// decode reads one object of the resource's type.
func decode[T any, PT interface {
	*T
	meta.Object
}](b []byte, what string) (PT, error) {
	obj := PT(new(T))
	if err := json.Unmarshal(b, obj); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDecode, what, err)
	}
	return obj, nil
}

// Get returns the object called name.
func (r *Resource[T, PT]) Get(ctx context.Context, name string) (PT, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	p, err := r.path(r.ns, name, "")
	if err != nil {
		return nil, err
	}
	b, err := r.c.do(ctx, &request{method: "GET", path: p, replaySafe: true})
	if err != nil {
		return nil, err
	}
	return decode[T, PT](b, "get "+p)
}

// List returns the objects selected by opts, one page when opts.Limit is set.
func (r *Resource[T, PT]) List(ctx context.Context, opts ListOptions) (*meta.List[T], error) {
	p, err := r.path(r.ns, "", "")
	if err != nil {
		return nil, err
	}
	b, err := r.c.do(ctx, &request{method: "GET", path: p, query: opts.query(), replaySafe: true})
	if err != nil {
		return nil, err
	}
	l := &meta.List[T]{}
	if err := json.Unmarshal(b, l); err != nil {
		return nil, fmt.Errorf("%w: list %s: %w", ErrDecode, p, err)
	}
	return l, nil
}

// Create creates obj (named, or with a generateName) and returns the
// object the server stored. obj is not modified.
func (r *Resource[T, PT]) Create(ctx context.Context, obj PT) (PT, error) {
	ns, err := r.objectNamespace(obj.GetObjectMeta())
	if err != nil {
		return nil, err
	}
	if r.err == nil && r.namespaced && ns == "" {
		return nil, fmt.Errorf("%w: a %s needs a namespace: set it on the object or the Resource", ErrRequest, r.gvk.Kind)
	}
	p, err := r.path(ns, "", "")
	if err != nil {
		return nil, err
	}
	if err := r.c.validateCreate(r.typ, obj, ns, "POST "+p); err != nil {
		return nil, err
	}
	return r.write(ctx, "POST", p, obj, false)
}

// Update replaces the object called obj.Name with obj. With
// obj.ResourceVersion set the update only succeeds against that version
// (409 Conflict otherwise) and may be retried safely; without it the
// update is unconditional and never retried. obj is not modified.
func (r *Resource[T, PT]) Update(ctx context.Context, obj PT) (PT, error) {
	return r.update(ctx, obj, "")
}

// UpdateStatus replaces the status of obj through the status
// subresource; the server keeps everything else as stored. It is not
// validated client-side: the server validates it against the stored spec,
// which the client does not have.
func (r *Resource[T, PT]) UpdateStatus(ctx context.Context, obj PT) (PT, error) {
	return r.update(ctx, obj, "status")
}

// UpdateSubresource replaces obj through a subresource served as a view
// of the whole object, such as certificatesigningrequests/approval; the
// server keeps what the subresource does not own. Not validated
// client-side.
func (r *Resource[T, PT]) UpdateSubresource(ctx context.Context, obj PT, subresource string) (PT, error) {
	if subresource == "" {
		return r.Update(ctx, obj)
	}
	return r.update(ctx, obj, subresource)
}

func (r *Resource[T, PT]) update(ctx context.Context, obj PT, sub string) (PT, error) {
	m := obj.GetObjectMeta()
	if err := requireName(m.Name); err != nil {
		return nil, err
	}
	ns, err := r.objectNamespace(m)
	if err != nil {
		return nil, err
	}
	p, err := r.path(ns, m.Name, sub)
	if err != nil {
		return nil, err
	}
	if sub == "" {
		if err := r.c.validateUpdate(r.typ, obj, ns, "PUT "+p); err != nil {
			return nil, err
		}
	}
	return r.write(ctx, "PUT", p, obj, m.ResourceVersion != "")
}

func (r *Resource[T, PT]) write(ctx context.Context, method, p string, obj PT, replaySafe bool) (PT, error) {
	body, err := r.encode(obj)
	if err != nil {
		return nil, err
	}
	b, err := r.c.do(ctx, &request{method: method, path: p, body: body, contentType: "application/json", replaySafe: replaySafe})
	if err != nil {
		return nil, err
	}
	return decode[T, PT](b, method+" "+p)
}

// Patch applies data, a patch of type pt, to the object called name and
// returns the result. Patches are never retried after they may have
// reached the server, and are validated only by the server.
func (r *Resource[T, PT]) Patch(ctx context.Context, name string, pt PatchType, data []byte) (PT, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	p, err := r.path(r.ns, name, "")
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty patch", ErrRequest)
	}
	q := url.Values{}
	if pt == ApplyPatchType {
		q.Set("fieldManager", r.c.userAgent)
	}
	b, err := r.c.do(ctx, &request{method: "PATCH", path: p, query: q, body: data, contentType: string(pt)})
	if err != nil {
		return nil, err
	}
	return decode[T, PT](b, "patch "+p)
}

// Delete deletes the object called name; opts may be nil. The server may
// keep the object for a while (graceful deletion, finalizers). Deletes are
// retried after errors that may have reached the server only when opts
// carries a UID or resourceVersion precondition.
func (r *Resource[T, PT]) Delete(ctx context.Context, name string, opts *meta.DeleteOptions) error {
	if err := requireName(name); err != nil {
		return err
	}
	p, err := r.path(r.ns, name, "")
	if err != nil {
		return err
	}
	req, err := deleteRequest(p, opts)
	if err != nil {
		return err
	}
	req.replaySafe = opts != nil && opts.Preconditions != nil &&
		(opts.Preconditions.UID != nil || opts.Preconditions.ResourceVersion != nil)
	_, err = r.c.do(ctx, req)
	return err
}

// DeleteCollection deletes every object selected by list; opts may be nil.
func (r *Resource[T, PT]) DeleteCollection(ctx context.Context, opts *meta.DeleteOptions, list ListOptions) error {
	p, err := r.path(r.ns, "", "")
	if err != nil {
		return err
	}
	req, err := deleteRequest(p, opts)
	if err != nil {
		return err
	}
	req.query = list.query()
	_, err = r.c.do(ctx, req)
	return err
}

func deleteRequest(p string, opts *meta.DeleteOptions) (*request, error) {
	req := &request{method: "DELETE", path: p}
	if opts != nil {
		o := *opts
		o.TypeMeta = meta.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}
		b, err := json.Marshal(&o)
		if err != nil {
			return nil, fmt.Errorf("%w: encode DeleteOptions: %w", ErrRequest, err)
		}
		req.body, req.contentType = b, "application/json"
	}
	return req, nil
}

// Watch starts a watch of the objects selected by opts and returns its
// events. The channel is closed when ctx ends, when the server ends the
// stream (resume from the last resourceVersion seen) or after an event of
// type meta.Error. A resourceVersion too old to watch from fails at once
// with a 410 error (reason Expired: apierrors.IsResourceExpired), or
// arrives as an ERROR event when the server finds out later. The watch owns one goroutine, which ends
// with the channel; cancel ctx to stop it.
func (r *Resource[T, PT]) Watch(ctx context.Context, opts ListOptions) (<-chan Event[PT], error) {
	p, err := r.path(r.ns, "", "")
	if err != nil {
		return nil, err
	}
	q := opts.query()
	q.Set("watch", "1")
	body, err := r.c.stream(ctx, &request{method: "GET", path: p, query: q, replaySafe: true})
	if err != nil {
		return nil, err
	}
	out := make(chan Event[PT], 16)
	go pump[T, PT](ctx, body, out)
	return out, nil
}

// Scale returns the scale subresource of the object called name.
func (r *Resource[T, PT]) Scale(ctx context.Context, name string) (*autoscaling.Scale, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	p, err := r.path(r.ns, name, "scale")
	if err != nil {
		return nil, err
	}
	b, err := r.c.do(ctx, &request{method: "GET", path: p, replaySafe: true})
	if err != nil {
		return nil, err
	}
	return decode[autoscaling.Scale](b, "get "+p)
}

// UpdateScale sets the desired replicas of the object called name from
// sc.Spec.Replicas (conditionally on sc.ResourceVersion when set) and
// returns the resulting Scale.
func (r *Resource[T, PT]) UpdateScale(ctx context.Context, name string, sc *autoscaling.Scale) (*autoscaling.Scale, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	p, err := r.path(r.ns, name, "scale")
	if err != nil {
		return nil, err
	}
	cp := *sc
	cp.TypeMeta = meta.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}
	if cp.Name == "" {
		cp.Name = name
	}
	body, err := json.Marshal(&cp)
	if err != nil {
		return nil, fmt.Errorf("%w: encode Scale: %w", ErrRequest, err)
	}
	b, err := r.c.do(ctx, &request{method: "PUT", path: p, body: body, contentType: "application/json", replaySafe: sc.ResourceVersion != ""})
	if err != nil {
		return nil, err
	}
	return decode[autoscaling.Scale](b, "update "+p)
}
