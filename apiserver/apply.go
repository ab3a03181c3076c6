package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/fieldmanager"
)

// causeTypeFieldManagerConflict is the cause type of an apply conflict.
const causeTypeFieldManagerConflict = "FieldManagerConflict"

// applyRequest is one server-side apply: the decoded configuration and
// its options.
type applyRequest struct {
	config  map[string]any
	manager string
	force   bool
}

// resourceVersion is the configuration's metadata.resourceVersion: a
// precondition on the stored object when set.
func (a *applyRequest) resourceVersion() string {
	md, _ := a.config["metadata"].(map[string]any)
	rv, _ := md["resourceVersion"].(string)
	return rv
}

// parseApply reads an apply patch body (YAML or JSON) and its options:
// fieldManager is required, force must be a boolean, the configuration
// must name the resource's apiVersion and kind and, where it names them,
// the request's name and namespace.
func (s *Server) parseApply(req *Request, body []byte) (*applyRequest, error) {
	if err := validateFieldManager(req, "PatchOptions", true); err != nil {
		return nil, err
	}
	a := &applyRequest{manager: req.Query.Get("fieldManager")}
	if f := req.Query.Get("force"); f != "" {
		v, err := strconv.ParseBool(f)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid value for force: %q", f))
		}
		a.force = v
	}
	j, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	if a.config, err = decodeUnstructured(j); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	res := req.resource
	gvk := res.Type.Kind
	apiVersion, _ := a.config["apiVersion"].(string)
	kind, _ := a.config["kind"].(string)
	if apiVersion != gvk.GroupVersion().String() || kind != gvk.Kind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid object type: %s, Kind=%s", apiVersion, kind))
	}
	md, _ := a.config["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		a.config["metadata"] = md
	}
	if name, _ := md["name"].(string); name != req.Info.Name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, req.Info.Name))
	}
	if ns, ok := md["namespace"].(string); ok && ns != "" && res.Type.Namespaced && ns != req.Info.Namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if res.Type.Namespaced {
		md["namespace"] = req.Info.Namespace
	}
	return a, nil
}

// strictApplyCheck decodes an apply configuration strictly, as
// kube-apiserver does under fieldValidation Strict and Warn: a duplicate
// key (`line 9: key "foo" already set in map`) is a 400 under Strict and a
// warning under Warn. Fields the schema does not declare are the typed
// conversion's to report. kube-apiserver runs this check after merging
// the configuration; here it runs before, so a configuration that is
// both duplicated and invalid reports the duplicate.
func strictApplyCheck(h http.Header, body []byte, directive string) error {
	if directive != fieldValidationStrict && directive != fieldValidationWarn {
		return nil
	}
	err := yaml.UnmarshalStrict(body, &map[string]any{})
	switch {
	case err == nil:
		return nil
	case directive == fieldValidationStrict:
		return apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
	}
	addWarnings(h, []string{err.Error()})
	return nil
}

// handleApply serves a PATCH of type application/apply-patch+yaml:
// server-side apply, which creates the object when it does not exist.
// directive is the request's fieldValidation (see strictApplyCheck).
func (s *Server) handleApply(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request, body []byte, directive string) {
	a, err := s.parseApply(req, body)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := strictApplyCheck(w.Header(), body, directive); err != nil {
		writeError(w, err)
		return
	}
	fm, err := s.fieldManagers.forResource(req.resource, req.Info.Subresource)
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	req.applying = true
	if req.Info.Subresource == "" {
		out, created, err := s.applyCreate(ctx, req, fm, a)
		if created || err != nil {
			if err != nil {
				writeError(w, err)
				return
			}
			s.writeObject(w, r, req, http.StatusCreated, out)
			return
		}
	}
	out, err := s.applyUpdate(ctx, req, fm, a)
	if err != nil {
		writeError(w, err)
		return
	}
	s.afterUpdate(ctx, req.resource, out)
	s.writeObject(w, r, req, http.StatusOK, out)
}

// applyCreate creates the object from the configuration when it does not
// exist yet; created is false when it exists (the caller updates it).
func (s *Server) applyCreate(ctx context.Context, req *Request, fm *fieldmanager.FieldManager, a *applyRequest) (meta.Object, bool, error) {
	res := req.resource
	if _, err := res.storage.Get(ctx, req.Info.Namespace, req.Info.Name); !apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if a.resourceVersion() != "" {
		return nil, false, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	live := map[string]any{
		"apiVersion": res.Type.Kind.GroupVersion().String(), "kind": res.Type.Kind.Kind,
		"metadata": map[string]any{"name": req.Info.Name},
	}
	if res.Type.Namespaced {
		live["metadata"].(map[string]any)["namespace"] = req.Info.Namespace
	}
	result, err := fm.Apply(live, a.config, a.manager, a.force, true)
	if err != nil {
		return nil, false, s.applyError(req, err)
	}
	obj, err := s.applied(req, result)
	if err != nil {
		return nil, false, err
	}
	create := s.create
	if res.CreateFunc != nil {
		create = res.CreateFunc
	}
	out, err := create(ctx, req, obj)
	if apierrors.ReasonForError(err) == meta.StatusReasonAlreadyExists {
		return nil, false, nil // created meanwhile: apply to it
	}
	return out, err == nil, err
}

// applyUpdate applies the configuration to the stored object.
func (s *Server) applyUpdate(ctx context.Context, req *Request, fm *fieldmanager.FieldManager, a *applyRequest) (meta.Object, error) {
	res := req.resource
	return res.storage.GuaranteedUpdate(ctx, req.Info.Namespace, req.Info.Name, true, func(cur meta.Object) (meta.Object, error) {
		if !cur.GetObjectMeta().IsInitialized() && !includeUninitialized(req.Query) {
			return nil, apierrors.NewNotFound(res.gr(), req.Info.Name)
		}
		if rv := a.resourceVersion(); rv != "" && rv != cur.GetObjectMeta().ResourceVersion {
			return nil, apierrors.NewConflict(res.gr(), req.Info.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
		}
		live, err := toUnstructured(cur)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		result, err := fm.Apply(live, a.config, a.manager, a.force, false)
		if err != nil {
			return nil, s.applyError(req, err)
		}
		next, err := s.applied(req, result)
		if err != nil {
			return nil, err
		}
		return s.prepareUpdate(ctx, req, next, cur)
	})
}

// applied decodes a merge result into an object of the resource's kind
// carrying its new managedFields.
func (s *Server) applied(req *Request, result fieldmanager.Result) (meta.Object, error) {
	b, err := json.Marshal(result.Object)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj := req.resource.Type.New()
	if _, err := decodeObject(b, obj, req.resource.Type.Kind, fieldValidationStrict); err != nil {
		return nil, err
	}
	if err := s.checkKind(obj, req.resource); err != nil {
		return nil, err
	}
	obj.GetObjectMeta().ManagedFields = result.ManagedFields
	return obj, nil
}

// applyError maps the fieldmanager's errors to Status: conflicts are 409
// with one cause per field, a configuration that does not fit the schema
// is 400 (kube-apiserver's wording), unreadable stored managedFields 500.
func (s *Server) applyError(req *Request, err error) error {
	var ce *fieldmanager.ConflictError
	switch {
	case errors.As(err, &ce):
		causes := make([]meta.StatusCause, 0, len(ce.Conflicts))
		for _, c := range ce.Causes() {
			causes = append(causes, meta.StatusCause{Type: causeTypeFieldManagerConflict, Message: c.Message, Field: c.Field})
		}
		return &meta.Status{
			TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   meta.StatusFailure, Code: http.StatusConflict, Reason: meta.StatusReasonConflict,
			Message: ce.Error(), Details: &meta.StatusDetails{Causes: causes},
		}
	case errors.Is(err, fieldmanager.ErrInvalidObject):
		gvk := req.resource.Type.Kind
		where := req.Info.Name
		if req.Info.Namespace != "" {
			where = req.Info.Namespace + "/" + where
		}
		return apierrors.NewBadRequest(fmt.Sprintf("failed to create typed patch object (%s; %s, Kind=%s): %v", where, gvk.GroupVersion(), gvk.Kind, strings.TrimPrefix(err.Error(), fieldmanager.ErrInvalidObject.Error()+": ")))
	}
	return apierrors.NewInternalError(err)
}

// checkNonApplyPatch checks the options of a patch that is not an apply:
// force is for apply only, fieldManager must be valid.
func checkNonApplyPatch(req *Request) error {
	if _, ok := req.Query["force"]; ok {
		errs := field.ErrorList{field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch")}
		return apierrors.NewInvalid(meta.GroupVersionKind{Group: "meta.k8s.io", Kind: "PatchOptions"}, "", errs)
	}
	return validateFieldManager(req, "PatchOptions", false)
}
