package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/store"
)

// Storage keeps the objects of one resource in a store.Interface: it
// encodes them as JSON under /registry/<resource>[.<group>]/[<ns>/]<name>,
// takes resourceVersion from the store's revisions, and turns store errors
// into API errors. It does no authorization or admission: the handlers
// call it after those stages. Safe for concurrent use.
type Storage struct {
	typ    *scheme.Type
	gr     meta.GroupResource
	store  store.Interface
	prefix string
	now    func() time.Time
	// keep, when set, holds back the removal of an object marked for
	// deletion (DeleteStrategy.Pending).
	keep func(meta.Object) bool
	// log receives the storage failures that responses do not repeat;
	// nil means slog.Default().
	log *slog.Logger
	// prime, when set, tells the resource's watch cache what is about to
	// be written (WatchCache.prime); undo is called if the write fails.
	prime func(key string, value []byte, obj meta.Object) (undo func())
	// storedAs, when set, is the kind objects are encoded with (a custom
	// resource's storage version); reads give them typ.Kind (Resource.StoredAs).
	storedAs *meta.GroupVersionKind
	// onRead, when set, rewrites stored values as they are read
	// (Resource.OnRead).
	onRead func([]byte) []byte
	// view, when set, makes this the storage of a view of another kind's
	// objects (Resource.View): stored values are that kind, converted on
	// every read and write.
	view *View
}

// primeWrite primes the watch cache for a write of value, the encoding of
// obj, under key.
func (s *Storage) primeWrite(key string, value []byte, obj meta.Object) (undo func()) {
	if s.prime == nil {
		return func() {}
	}
	return s.prime(key, value, obj)
}

// pending reports whether obj, marked for deletion, must stay stored.
func (s *Storage) pending(obj meta.Object) bool { return s.keep != nil && s.keep(obj) }

// NewStorage returns the storage of t's resource in st.
func NewStorage(t *scheme.Type, st store.Interface) *Storage {
	gr := t.GroupVersionResource().GroupResource()
	return &Storage{typ: t, gr: gr, store: st, prefix: "/registry/" + gr.String() + "/", now: time.Now}
}

// Type returns the scheme type the storage holds.
func (s *Storage) Type() *scheme.Type { return s.typ }

// GroupResource returns the resource the storage holds.
func (s *Storage) GroupResource() meta.GroupResource { return s.gr }

// KeyPrefix returns the store prefix of namespace ns (all namespaces when
// ns is "" or the resource is cluster-scoped).
func (s *Storage) KeyPrefix(ns string) string {
	if ns == "" || !s.typ.Namespaced {
		return s.prefix
	}
	return s.prefix + ns + "/"
}

// Key returns the store key of the object ns/name.
func (s *Storage) Key(ns, name string) string {
	if !s.typ.Namespaced {
		return s.prefix + name
	}
	return s.prefix + ns + "/" + name
}

// newViewStorage returns the storage of view type t whose objects are
// stored as v.Stored: under v.Stored's keys, converted on every read and
// write. Errors name t's resource.
func newViewStorage(t *scheme.Type, v *View, st store.Interface) *Storage {
	s := NewStorage(t, st)
	s.prefix = "/registry/" + v.Stored.GroupVersionResource().GroupResource().String() + "/"
	s.view = v
	return s
}

// Encode returns the stored form of obj: JSON without resourceVersion.
// A view's object is converted to the stored kind first.
func (s *Storage) Encode(obj meta.Object) ([]byte, error) {
	if s.view != nil {
		so, err := s.view.toStored(obj)
		if err != nil {
			return nil, err
		}
		so.GetObjectMeta().ResourceVersion = ""
		return json.Marshal(so)
	}
	m := obj.GetObjectMeta()
	rv := m.ResourceVersion
	m.ResourceVersion = ""
	if s.storedAs != nil {
		obj.GetTypeMeta().SetGroupVersionKind(*s.storedAs)
	} else {
		obj.GetTypeMeta().SetGroupVersionKind(s.typ.Kind)
	}
	b, err := json.Marshal(obj)
	m.ResourceVersion = rv
	obj.GetTypeMeta().SetGroupVersionKind(s.typ.Kind)
	return b, err
}

// wire is WireJSON for this storage: a value stored under another version
// (storedAs) gets the apiVersion the storage serves. A view's values are
// other kinds: nil, the caller encodes the converted object.
func (s *Storage) wire(stored []byte, rv int64) []byte {
	if s.view != nil {
		return nil
	}
	if s.onRead != nil {
		stored = s.onRead(stored)
	}
	return s.wireWritten(stored, rv)
}

// wireWritten is wire for a value this process has just encoded from a
// prepared object (defaulted on write): no OnRead pass.
func (s *Storage) wireWritten(stored []byte, rv int64) []byte {
	if s.view != nil {
		return nil
	}
	if s.storedAs != nil {
		stored = rewriteAPIVersion(stored, s.typ.Kind.GroupVersion().String())
	}
	return WireJSON(stored, rv)
}

// WireJSON returns the stored value as the API sends it: with the
// resourceVersion rv added to metadata. It splices the bytes rather than
// re-encoding, relying on Encode writing TypeMeta before metadata. For a
// valid JSON object the result is valid JSON; nil means the value has no
// top-level "metadata":{ where the splice could go (the caller encodes
// the decoded object instead).
func WireJSON(stored []byte, rv int64) []byte {
	const marker = `"metadata":{`
	i := bytes.Index(stored, []byte(marker))
	if i < 0 || !atTopLevel(stored, i) {
		return nil
	}
	i += len(marker)
	var num [20]byte
	n := strconv.AppendInt(num[:0], rv, 10)
	out := make([]byte, 0, len(stored)+len(`"resourceVersion":"",`)+len(n))
	out = append(out, stored[:i]...)
	out = append(out, `"resourceVersion":"`...)
	out = append(out, n...)
	out = append(out, '"')
	if i < len(stored) && stored[i] != '}' {
		out = append(out, ',')
	}
	return append(out, stored[i:]...)
}

// atTopLevel reports whether offset i of the JSON text b is outside any
// string and directly inside the outermost object (where a key of the
// top-level object starts). Encode puts metadata third, so this scans a
// few dozen bytes.
func atTopLevel(b []byte, i int) bool {
	depth, inString := 0, false
	for j := 0; j < i; j++ {
		c := b[j]
		switch {
		case inString && c == '\\':
			j++ // skip the escaped byte
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return depth == 1 && !inString
}

// Decode turns a stored value into an object with its resourceVersion set.
func (s *Storage) Decode(kv store.KV) (meta.Object, error) {
	if s.view != nil {
		return s.decodeView(kv)
	}
	obj := s.typ.New()
	value := kv.Value
	if s.onRead != nil {
		value = s.onRead(value)
	}
	if err := json.Unmarshal(value, obj); err != nil {
		return nil, fmt.Errorf("%w: %s %q: %w", ErrUndecodable, s.gr, nameFromKey(kv.Key), err)
	}
	obj.GetTypeMeta().SetGroupVersionKind(s.typ.Kind)
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	return obj, nil
}

// decodeView decodes a stored value as the view's stored kind and
// converts it to the served one.
func (s *Storage) decodeView(kv store.KV) (meta.Object, error) {
	st := s.view.Stored
	stored := st.New()
	value := kv.Value
	if s.onRead != nil {
		value = s.onRead(value)
	}
	if err := json.Unmarshal(value, stored); err != nil {
		return nil, fmt.Errorf("%w: %s %q: %w", ErrUndecodable, s.gr, nameFromKey(kv.Key), err)
	}
	stored.GetTypeMeta().SetGroupVersionKind(st.Kind)
	stored.GetObjectMeta().ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
	obj, err := s.view.fromStored(stored, s.typ.Kind)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q: convert from %s: %w", ErrUndecodable, s.gr, nameFromKey(kv.Key), st.Kind.GroupVersion(), err)
	}
	return obj, nil
}

// Get returns the object ns/name as stored, initialized or not.
func (s *Storage) Get(ctx context.Context, ns, name string) (meta.Object, error) {
	kv, err := s.store.Get(ctx, s.Key(ns, name))
	if err != nil {
		return nil, s.apiError(err, name)
	}
	obj, err := s.Decode(kv)
	return obj, s.apiError(err, name)
}

// Create stores obj, which must be prepared and validated, reads the
// stored value back to check it is what was written, and returns obj with
// the resourceVersion it was stored at.
func (s *Storage) Create(ctx context.Context, obj meta.Object) (meta.Object, error) {
	out, _, err := s.create(ctx, obj)
	return out, err
}

// create is Create that also returns the object's wire JSON (the stored
// bytes with the resourceVersion spliced in) when the object returned is
// the one written; nil when it changed again in between.
func (s *Storage) create(ctx context.Context, obj meta.Object) (meta.Object, []byte, error) {
	m := obj.GetObjectMeta()
	b, err := s.Encode(obj)
	if err != nil {
		return nil, nil, s.internalError(fmt.Sprintf("%s could not be encoded", qualifiedName(s.gr, m.Name)), err)
	}
	key := s.Key(m.Namespace, m.Name)
	undo := s.primeWrite(key, b, obj)
	rev, err := s.store.Create(ctx, key, b)
	if err != nil {
		undo()
		return nil, nil, s.apiError(err, m.Name)
	}
	kv, err := s.store.Get(ctx, key)
	if err != nil {
		return nil, nil, s.apiError(err, m.Name)
	}
	if kv.ModRevision == rev && !bytes.Equal(kv.Value, b) {
		return nil, nil, apierrors.NewInternalError(fmt.Errorf("%s %q: the stored value differs from what was written", s.gr, m.Name))
	}
	if kv.ModRevision != rev {
		// Changed again in between (a controller was quick): return that.
		out, err := s.Decode(kv)
		return out, nil, s.apiError(err, m.Name)
	}
	m.ResourceVersion = strconv.FormatInt(rev, 10)
	return obj, s.wireWritten(b, rev), nil
}

// UpdateFunc computes the new version of an object from the current one.
// It may return the same pointer it was given. Returning errNoChange (via
// NoChange) writes nothing: GuaranteedUpdate then returns the object the
// function returned with it (a dry run's result), or the current one when
// that is nil.
type UpdateFunc func(cur meta.Object) (meta.Object, error)

// errNoChange tells GuaranteedUpdate to write nothing.
var errNoChange = errors.New("no change")

// NoChange is returned by an UpdateFunc that decides not to write.
func NoChange() error { return errNoChange }

// GuaranteedUpdate reads ns/name, applies update and writes the result if
// the object did not change in between, retrying on conflicts while
// retry is true (for patches and server-side changes; a PUT with a
// resourceVersion must not retry). A result whose metadata has a
// deletionTimestamp and no finalizers is deleted instead of written.
func (s *Storage) GuaranteedUpdate(ctx context.Context, ns, name string, retry bool, update UpdateFunc) (meta.Object, error) {
	key := s.Key(ns, name)
	for attempt := 0; ; attempt++ {
		kv, err := s.store.Get(ctx, key)
		if err != nil {
			return nil, s.apiError(err, name)
		}
		cur, err := s.Decode(kv)
		if err != nil {
			return nil, s.apiError(err, name)
		}
		next, err := update(cur)
		if errors.Is(err, errNoChange) {
			if next != nil {
				return next, nil
			}
			return cur, nil
		}
		if err != nil {
			return nil, err
		}
		nm := next.GetObjectMeta()
		if nm.DeletionTimestamp != nil && len(nm.Finalizers) == 0 && !s.pending(next) {
			_, _, err = s.store.Delete(ctx, key, kv.ModRevision)
			if err == nil {
				nm.ResourceVersion = ""
				return next, nil
			}
		} else {
			var b []byte
			if b, err = s.Encode(next); err != nil {
				return nil, s.internalError(fmt.Sprintf("%s could not be encoded", qualifiedName(s.gr, name)), err)
			}
			var rev int64
			undo := s.primeWrite(key, b, next)
			if rev, err = s.store.Update(ctx, key, b, kv.ModRevision); err == nil {
				nm.ResourceVersion = strconv.FormatInt(rev, 10)
				return next, nil
			}
			undo()
		}
		if !errors.Is(err, store.ErrConflict) || !retry || attempt > 100 {
			return nil, s.apiError(err, name)
		}
	}
}

// Delete removes ns/name if its resourceVersion is still rv ("" for any).
func (s *Storage) Delete(ctx context.Context, ns, name, rv string) (meta.Object, error) {
	var expected int64
	if rv != "" {
		var err error
		if expected, err = strconv.ParseInt(rv, 10, 64); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", rv))
		}
	}
	prev, _, err := s.store.Delete(ctx, s.Key(ns, name), expected)
	if err != nil {
		return nil, s.apiError(err, name)
	}
	obj, err := s.Decode(prev)
	return obj, s.apiError(err, name)
}

// ListRaw lists the stored objects of namespace ns ("" for all). A
// revision the store has compacted away gets 410 Expired with
// kube-apiserver's messages; so does a continue token of a compacted
// revision, carrying (as kube-apiserver) a fresh token in its metadata
// that lists the rest, after the same key, at the current revision: an
// inconsistent list the client may choose to finish.
func (s *Storage) ListRaw(ctx context.Context, ns string, opts store.ListOptions) (store.ListResult, error) {
	prefix := s.KeyPrefix(ns)
	res, err := s.store.List(ctx, prefix, opts)
	switch {
	case errors.Is(err, store.ErrTooOld) && opts.Continue != "":
		return res, s.continueExpired(ctx, prefix, opts.Continue)
	case errors.Is(err, store.ErrTooOld):
		return res, apierrors.NewResourceExpired(listExpired)
	case err != nil:
		return res, s.apiError(err, "")
	}
	return res, nil
}

// continueExpired is the 410 for the continue token cont of a compacted
// revision: with a token for the rest of the list after the same key at
// the store's current revision, and kube-apiserver's message for it.
// Without a current revision the 410 carries no token (and the shorter
// message, as kube-apiserver's when it cannot encode one).
func (s *Storage) continueExpired(ctx context.Context, prefix, cont string) error {
	tok, err := store.DecodeContinue(cont, prefix)
	if err != nil {
		return apierrors.NewResourceExpired(continueExpired)
	}
	rev, err := s.store.Revision(ctx)
	if err != nil || rev <= 0 {
		return apierrors.NewResourceExpired(continueExpired)
	}
	st := apierrors.NewResourceExpired(continueInconsistent)
	st.Continue = store.ContinueToken{Revision: rev, After: tok.After}.Encode()
	return st
}

// kube-apiserver's answers to a list whose revision has been compacted:
// an exact list (resourceVersion with resourceVersionMatch=Exact), and a
// continue token, with a fresh token for the rest of the list at the
// latest revision (continueInconsistent) or, when it has none, without
// (continueExpired).
const (
	listExpired     = "The resourceVersion for the provided list is too old."
	continueExpired = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter."
	continueInconsistent = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
)

// apiError maps a store error to the API's Status for this resource. It is
// the one place where storage errors become HTTP errors. The store's own
// text names keys, revisions and files, so no Status repeats it: each
// sentinel gets kube-apiserver's wording, and an unexpected failure is
// logged in full and answered with a 500 that names only the object.
func (s *Storage) apiError(err error, name string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.FromError(err) != nil:
		return err
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalidKey):
		// A name the store cannot hold names no stored object.
		return apierrors.NewNotFound(s.gr, name)
	case errors.Is(err, store.ErrAlreadyExists):
		return apierrors.NewAlreadyExists(s.gr, name)
	case errors.Is(err, store.ErrConflict):
		return apierrors.NewConflict(s.gr, name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	case errors.Is(err, store.ErrTooOld):
		return apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")
	case errors.Is(err, store.ErrInvalidContinue):
		return apierrors.NewBadRequest("the provided continue parameter is not valid")
	case errors.Is(err, store.ErrTooLarge):
		return apierrors.NewRequestEntityTooLarge(fmt.Sprintf("%s is too large to store", qualifiedName(s.gr, name)))
	case errors.Is(err, store.ErrFutureRevision):
		return apierrors.NewTimeout("Too large resource version")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return apierrors.NewTimeout("request did not complete within requested timeout")
	case errors.Is(err, store.ErrClosed):
		return apierrors.NewServiceUnavailable("the server is shutting down")
	case errors.Is(err, ErrUndecodable):
		return s.internalError(fmt.Sprintf("the stored %s could not be decoded", qualifiedName(s.gr, name)), err)
	}
	return s.internalError(fmt.Sprintf("storage failed on %s", qualifiedName(s.gr, name)), err)
}

// internalError logs err, whose text may name storage keys, files or Go
// internals, and returns a 500 that says only what failed.
func (s *Storage) internalError(what string, err error) error {
	log := s.log
	if log == nil {
		log = slog.Default()
	}
	log.Error("apiserver: "+what, "resource", s.gr.String(), "err", err)
	return apierrors.NewInternalError(errors.New(what))
}

// qualifiedName words a resource and name as Status messages do
// (`configmaps "cfg"`, or the resource alone for no name).
func qualifiedName(gr meta.GroupResource, name string) string {
	if name == "" {
		return gr.String()
	}
	return fmt.Sprintf("%s %q", gr.String(), name)
}

// nameFromKey returns the last segment of a store key.
func nameFromKey(key string) string {
	return key[strings.LastIndexByte(key, '/')+1:]
}
