package apiserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/orkit/orkit/admission"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/fields"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
)

// Request is a resource request on its way through the handlers: who, what,
// and the served resource it addresses.
type Request struct {
	Info     *RequestInfo
	User     *authn.User
	Query    url.Values
	resource *served
	// created is the wire JSON of the object the default create returned,
	// from the stored bytes, so the response needs no second encoding;
	// nil when the object was not sent as stored.
	created []byte
	// userAgent is the client's User-Agent, which names the field manager
	// of a write without a fieldManager parameter.
	userAgent string
	// applying is set while a server-side apply writes: the apply has
	// recorded ownership itself.
	applying bool
	// as is the form the response takes (negotiateResponse).
	as responseAs
}

// Storage returns the storage of the addressed resource.
func (r *Request) Storage() *Storage { return r.resource.storage }

// served is a registered Resource with its storage and watch cache.
type served struct {
	Resource
	storage *Storage
	cache   *WatchCache
	// fieldLabels are the labels field selectors may use (fieldLabels).
	fieldLabels map[string]bool
	// stop ends the watch cache of a resource registered while serving
	// (Unregister); nil for the others, which run until the server stops.
	stop context.CancelFunc
}

func (s *served) gr() meta.GroupResource { return s.storage.gr }

// handleResource dispatches a resource request to its verb.
func (s *Server) handleResource(w http.ResponseWriter, r *http.Request, req *Request) {
	if prefersProtobuf(r) {
		w = &protobufWriter{w}
	}
	ctx := admission.WithWarningRecorder(r.Context(), &headerWarnings{h: w.Header()})
	info := req.Info
	if req.resource.Warning != "" {
		addWarnings(w.Header(), []string{req.resource.Warning})
	}
	if err := refuseStrategicMerge(r, req); err != nil {
		writeError(w, err)
		return
	}
	if info.Subresource != "" && info.Subresource != "status" && !slices.Contains(req.resource.ObjectSubresources, info.Subresource) {
		s.handleSubresource(ctx, w, r, req)
		return
	}
	if req.resource.Verbs != nil && !slices.Contains(req.resource.Verbs, info.Verb) {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), info.Verb))
		return
	}
	var err error
	if req.as, err = negotiateResponse(r.Header.Get("Accept"), req.resource, info.Verb); err != nil {
		writeError(w, err)
		return
	}
	switch info.Verb {
	case "get":
		s.handleGet(ctx, w, r, req)
	case "list":
		s.handleList(ctx, w, r, req)
	case "watch":
		s.handleWatch(ctx, w, r, req)
	case "create":
		if info.Name != "" || info.Subresource != "" {
			writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), "create"))
			return
		}
		s.handleCreate(ctx, w, r, req)
	case "update":
		s.handleUpdate(ctx, w, r, req)
	case "patch":
		s.handlePatch(ctx, w, r, req)
	case "delete":
		s.handleDelete(ctx, w, r, req)
	case "deletecollection":
		s.handleDeleteCollection(ctx, w, r, req)
	default:
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), info.Verb))
	}
}

func (s *Server) handleSubresource(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	res := req.resource
	if req.Info.Subresource == "scale" && res.Scale != nil {
		s.handleScale(ctx, w, r, req)
		return
	}
	h, ok := res.Subresources[req.Info.Subresource]
	if !ok {
		writeError(w, apierrors.NewNotFound(res.gr(), req.Info.Name+"/"+req.Info.Subresource))
		return
	}
	h.ServeSubresource(ctx, w, r, req)
}

// getVisible reads ns/name, hiding uninitialized objects unless asked.
func (s *Server) getVisible(ctx context.Context, req *Request) (meta.Object, error) {
	obj, err := req.resource.storage.Get(ctx, req.Info.Namespace, req.Info.Name)
	if err != nil {
		return nil, err
	}
	if !obj.GetObjectMeta().IsInitialized() && !includeUninitialized(req.Query) {
		return nil, apierrors.NewNotFound(req.resource.gr(), req.Info.Name)
	}
	return obj, nil
}

func (s *Server) handleGet(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	obj, err := s.getVisible(ctx, req)
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeObject(w, r, req, http.StatusOK, obj)
}

// writeObject writes obj, as a Table or PartialObjectMetadata when the
// client asked for one (req.as).
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, req *Request, code int, obj meta.Object) {
	switch req.as.Kind {
	case asTable:
		writeJSON(w, code, req.resource.asTable(req.as, []meta.Object{obj}, "", "", includeObject(r)))
	case asPartial:
		writeJSON(w, code, partialMetadata(obj, req.as.apiVersion()))
	default:
		writeJSON(w, code, obj)
	}
}

func includeUninitialized(q url.Values) bool {
	v := q.Get("includeUninitialized")
	return v == "true" || v == "1"
}

// parseFilter reads labelSelector and fieldSelector.
func parseFilter(req *Request) (Filter, error) {
	f := Filter{IncludeUninitialized: includeUninitialized(req.Query)}
	if ls := req.Query.Get("labelSelector"); ls != "" {
		sel, err := labels.Parse(ls)
		if err != nil {
			return f, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
		f.Label = sel
	}
	if fs := req.Query.Get("fieldSelector"); fs != "" {
		sel, err := fields.Parse(fs)
		if err != nil {
			return f, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector: %v", err))
		}
		if err := checkFieldLabels(req.resource, sel); err != nil {
			return f, err
		}
		f.Field = sel
	}
	return f, nil
}

// decodeRequestObject reads the body of a create or update into a new
// object of the resource's kind under the request's fieldValidation
// (optionsKind names the verb's options in a 422 about it; warnings go to
// w's header), checks its kind and settles its namespace.
func (s *Server) decodeRequestObject(w http.ResponseWriter, r *http.Request, req *Request, optionsKind string) (meta.Object, error) {
	res := req.resource
	directive, err := fieldValidation(req.Query, optionsKind)
	if err != nil {
		return nil, err
	}
	if err := validateFieldManager(req, optionsKind, false); err != nil {
		return nil, err
	}
	body, _, err := readBody(r, "application/json", "application/yaml")
	if err != nil {
		return nil, err
	}
	obj := res.Type.New()
	warnings, err := decodeObject(body, obj, res.Type.Kind, directive)
	if err != nil {
		return nil, err
	}
	addWarnings(w.Header(), warnings)
	if err := s.checkKind(obj, res); err != nil {
		return nil, err
	}
	if err := setNamespace(obj.GetObjectMeta(), req.Info.Namespace, res.Type.Namespaced); err != nil {
		return nil, err
	}
	return obj, nil
}

func (s *Server) handleCreate(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	res := req.resource
	obj, err := s.decodeRequestObject(w, r, req, "CreateOptions")
	if err != nil {
		writeError(w, err)
		return
	}
	create := s.create
	if res.CreateFunc != nil {
		create = res.CreateFunc
	}
	out, err := create(ctx, req, obj)
	if err != nil {
		writeError(w, err)
		return
	}
	if req.created != nil && req.as.Kind == "" {
		writeRaw(w, http.StatusCreated, req.created)
		return
	}
	s.writeObject(w, r, req, http.StatusCreated, out)
}

// create runs the create pipeline on a decoded object: metadata, defaults,
// prepare, mutating admission, validation, RBAC escalation checks,
// validating admission, initializers, store, read back, wait for
// initialization.
func (s *Server) create(ctx context.Context, req *Request, obj meta.Object) (meta.Object, error) {
	res := req.resource
	m := obj.GetObjectMeta()
	if m.Name == "" && m.GenerateName != "" {
		m.Name = m.GenerateName + randomSuffix()
	}
	m.UID = meta.UID(newUID())
	m.CreationTimestamp = meta.Now()
	m.ResourceVersion, m.DeletionTimestamp, m.DeletionGracePeriodSeconds = "", nil, nil
	if res.Type.Default != nil {
		res.Type.Default(obj)
	}
	res.Strategy.PrepareForCreate(ctx, obj)
	s.trackUpdate(req, obj, nil)
	attrs := s.admissionAttrs(req, admission.Create, obj, nil)
	if err := s.admission.Admit(ctx, attrs); err != nil {
		return nil, admissionError(res, m.Name, err)
	}
	if errs := res.Strategy.Validate(ctx, obj); len(errs) > 0 {
		return nil, apierrors.NewInvalid(res.Type.Kind, m.Name, errs)
	}
	if err := s.checkEscalation(ctx, req, obj, nil); err != nil {
		return nil, err
	}
	if err := s.admission.Validate(ctx, attrs); err != nil {
		return nil, admissionError(res, m.Name, err)
	}
	if s.initializers != nil {
		s.initializers.fillPending(res, obj)
	}
	if isDryRun(req.Query) {
		return obj, nil
	}
	out, wire, err := res.storage.create(ctx, obj)
	if err != nil {
		s.admission.Release(context.WithoutCancel(ctx), attrs)
		return nil, err
	}
	if !out.GetObjectMeta().IsInitialized() && !includeUninitialized(req.Query) {
		if out, err = s.waitInitialized(ctx, res, out); err != nil {
			return nil, err
		}
		wire = nil
	}
	s.postCreate(ctx, res, out)
	req.created = wire
	return out, nil
}

func (s *Server) checkKind(obj meta.Object, res *served) error {
	tm := obj.GetTypeMeta()
	if (tm.Kind != "" && tm.Kind != res.Type.Kind.Kind) || (tm.APIVersion != "" && tm.APIVersion != res.Type.Kind.GroupVersion().String()) {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", tm.APIVersion, res.Type.Kind.GroupVersion()))
	}
	tm.SetGroupVersionKind(res.Type.Kind)
	return nil
}

func setNamespace(m *meta.ObjectMeta, ns string, namespaced bool) error {
	if !namespaced {
		m.Namespace = ""
		return nil
	}
	switch {
	case m.Namespace == "":
		m.Namespace = ns
	case ns != "" && m.Namespace != ns:
		return apierrors.NewBadRequest(fmt.Sprintf("the namespace of the provided object does not match the namespace sent on the request"))
	}
	if m.Namespace == "" {
		return apierrors.NewBadRequest("the namespace of the object is required")
	}
	return nil
}

func (s *Server) admissionAttrs(req *Request, op admission.Operation, obj, old meta.Object) *admission.Attributes {
	var ns, name string
	if obj != nil {
		ns, name = obj.GetObjectMeta().Namespace, obj.GetObjectMeta().Name
	} else if old != nil {
		ns, name = old.GetObjectMeta().Namespace, old.GetObjectMeta().Name
	}
	return &admission.Attributes{
		Operation: op, Kind: req.resource.Type.Kind, Resource: req.resource.Type.GroupVersionResource(),
		Subresource: req.Info.Subresource, Namespace: ns, Name: name,
		Object: obj, OldObject: old, User: req.User, DryRun: isDryRun(req.Query),
	}
}

// admissionError keeps a plugin's own Status, else reports a 403 naming
// the plugin, as kube-apiserver does.
func admissionError(res *served, name string, err error) error {
	if st := apierrors.FromError(err); st != nil {
		return st
	}
	return apierrors.NewForbidden(res.gr(), name, fmt.Sprintf("%s %q is forbidden: %v", res.gr(), name, err))
}

func isDryRun(q url.Values) bool { return len(q["dryRun"]) > 0 }

func (s *Server) handleUpdate(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	res := req.resource
	obj, err := s.decodeRequestObject(w, r, req, "UpdateOptions")
	if err != nil {
		writeError(w, err)
		return
	}
	m := obj.GetObjectMeta()
	if m.Name != req.Info.Name {
		writeError(w, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.Name, req.Info.Name)))
		return
	}
	rv := m.ResourceVersion
	out, err := res.storage.GuaranteedUpdate(ctx, m.Namespace, m.Name, rv == "", func(cur meta.Object) (meta.Object, error) {
		if rv != "" && rv != cur.GetObjectMeta().ResourceVersion {
			return nil, apierrors.NewConflict(res.gr(), m.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
		}
		next := meta.DeepCopy(obj)
		return s.prepareUpdate(ctx, req, next, cur)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	s.afterUpdate(ctx, res, out)
	s.writeObject(w, r, req, http.StatusOK, out)
}

// prepareUpdate runs the update pipeline on next replacing cur: carry
// over what clients cannot change, prepare, admission, validation, RBAC
// escalation checks.
func (s *Server) prepareUpdate(ctx context.Context, req *Request, next, cur meta.Object) (meta.Object, error) {
	res := req.resource
	nm, cm := next.GetObjectMeta(), cur.GetObjectMeta()
	nm.UID, nm.CreationTimestamp = cm.UID, cm.CreationTimestamp
	nm.DeletionTimestamp, nm.DeletionGracePeriodSeconds = cm.DeletionTimestamp, cm.DeletionGracePeriodSeconds
	nm.ResourceVersion = cm.ResourceVersion
	if nm.Initializers == nil || req.Info.Subresource == "status" {
		nm.Initializers = cm.Initializers
	} else if len(nm.Initializers.Pending) == 0 && nm.Initializers.Result == nil {
		nm.Initializers = nil // the last initializer removed itself
	}
	if res.Type.Default != nil {
		res.Type.Default(next)
	}
	res.Strategy.PrepareForUpdate(ctx, next, cur, req.Info.Subresource)
	s.trackUpdate(req, next, cur)
	attrs := s.admissionAttrs(req, admission.Update, next, cur)
	if err := s.admission.Admit(ctx, attrs); err != nil {
		return nil, admissionError(res, nm.Name, err)
	}
	if errs := validateUpdate(ctx, res.Strategy, next, cur, req.Info.Subresource); len(errs) > 0 {
		return nil, apierrors.NewInvalid(res.Type.Kind, nm.Name, errs)
	}
	if err := s.checkEscalation(ctx, req, next, cur); err != nil {
		return nil, err
	}
	if err := s.admission.Validate(ctx, attrs); err != nil {
		return nil, admissionError(res, nm.Name, err)
	}
	if isDryRun(req.Query) {
		return next, NoChange()
	}
	if sameStored(res.storage, next, cur) {
		return nil, NoChange()
	}
	return next, nil
}

// sameStored reports whether next would store the same bytes as cur (an
// update that changes nothing is not written, as Kubernetes does).
func sameStored(s *Storage, next, cur meta.Object) bool {
	a, err1 := s.Encode(next)
	b, err2 := s.Encode(cur)
	return err1 == nil && err2 == nil && string(a) == string(b)
}

func (s *Server) handleDelete(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	opts, err := readDeleteOptions(r, req.Query)
	if err != nil {
		writeError(w, err)
		return
	}
	obj, deleted, err := s.delete(ctx, req, req.Info.Namespace, req.Info.Name, opts)
	if err != nil {
		writeError(w, err)
		return
	}
	// 200, as kube-apiserver answers, also when the object stays (a
	// graceful pod deletion, finalizers); 202 only when the client asked
	// for cascading deletion with orphanDependents=false and the object
	// is not gone yet.
	code := http.StatusOK
	if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = http.StatusAccepted
	}
	s.writeObject(w, r, req, code, obj)
}

// readDeleteOptions reads DeleteOptions from the body or the query.
func readDeleteOptions(r *http.Request, q url.Values) (*meta.DeleteOptions, error) {
	opts := &meta.DeleteOptions{}
	if r.ContentLength != 0 && r.Body != nil {
		b, _, err := readBody(r, "application/json", "application/yaml")
		if err != nil {
			return nil, err
		}
		if len(b) > 0 {
			if err := json.Unmarshal(b, opts); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid DeleteOptions: %v", err))
			}
		}
	}
	if v := q.Get("gracePeriodSeconds"); v != "" {
		g, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid gracePeriodSeconds %q", v))
		}
		opts.GracePeriodSeconds = &g
	}
	if v := q.Get("propagationPolicy"); v != "" {
		p := meta.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	// kubectl sends dryRun in the DeleteOptions body; the pipeline reads
	// it from the query, so the two are merged there.
	if len(opts.DryRun) > 0 && q != nil && len(q["dryRun"]) == 0 {
		q["dryRun"] = opts.DryRun
	}
	if opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case meta.DeletePropagationOrphan, meta.DeletePropagationBackground, meta.DeletePropagationForeground:
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("propagationPolicy %q is not supported", *opts.PropagationPolicy))
		}
	}
	return opts, nil
}

func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func newUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

var _ = time.Second
