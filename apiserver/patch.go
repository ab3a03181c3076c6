package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/patch"
)

// patchTypes are the content types a PATCH may carry.
var patchTypes = []string{string(patch.MergePatch), string(patch.JSONPatch), string(patch.StrategicMerge), string(patch.ApplyPatch)}

// handlePatch applies a JSON merge, JSON or strategic merge patch to the
// current object and writes the result through the update pipeline,
// retrying on conflicts (a patch carries no resourceVersion unless the
// client put one in it).
func (s *Server) handlePatch(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	res := req.resource
	directive, err := fieldValidation(req.Query, "PatchOptions")
	if err != nil {
		writeError(w, err)
		return
	}
	body, mt, err := readBody(r, patchTypes...)
	if err != nil {
		writeError(w, err)
		return
	}
	if mt == string(patch.ApplyPatch) {
		s.handleApply(ctx, w, r, req, body, directive)
		return
	}
	if err := checkNonApplyPatch(req); err != nil {
		writeError(w, err)
		return
	}
	var warnings []string // of the last attempt: a conflict retries the patch
	out, err := res.storage.GuaranteedUpdate(ctx, req.Info.Namespace, req.Info.Name, true, func(cur meta.Object) (meta.Object, error) {
		if !cur.GetObjectMeta().IsInitialized() && !includeUninitialized(req.Query) {
			return nil, apierrors.NewNotFound(res.gr(), req.Info.Name)
		}
		next := res.Type.New()
		curJSON, err := json.Marshal(cur)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		patched, err := patch.Apply(patch.Type(mt), curJSON, body, res.Type.Kind.Kind)
		if err != nil {
			return nil, patchError(err)
		}
		if warnings, err = decodeObject(patched, next, res.Type.Kind, directive); err != nil {
			return nil, err
		}
		if err := s.checkKind(next, res); err != nil {
			return nil, err
		}
		nm, cm := next.GetObjectMeta(), cur.GetObjectMeta()
		if nm.Name != cm.Name || nm.Namespace != cm.Namespace {
			return nil, apierrors.NewBadRequest("the patch may not change the name or namespace of the object")
		}
		if nm.ResourceVersion != "" && nm.ResourceVersion != cm.ResourceVersion {
			return nil, apierrors.NewConflict(res.gr(), cm.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
		}
		return s.prepareUpdate(ctx, req, next, cur)
	})
	addWarnings(w.Header(), warnings)
	if err != nil {
		writeError(w, err)
		return
	}
	s.afterUpdate(ctx, res, out)
	s.writeObject(w, r, req, http.StatusOK, out)
}

// patchInto applies a patch of media type mt to the JSON form of dst.
func patchInto(mt string, dst any, body []byte) error {
	cur, err := json.Marshal(dst)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	out, err := patch.Apply(patch.Type(mt), cur, body, "")
	if err != nil {
		return patchError(err)
	}
	return decodeStrict(out, dst, false)
}

// patchError maps the patch package's errors to Status.
func patchError(err error) error {
	switch {
	case errors.Is(err, patch.ErrUnsupported):
		return apierrors.NewUnsupportedMediaType(err.Error())
	case errors.Is(err, patch.ErrTooLarge):
		return apierrors.NewRequestEntityTooLarge(err.Error())
	case errors.Is(err, patch.ErrInvalidDocument):
		return apierrors.NewInternalError(err)
	}
	var opErr *patch.OperationError
	if errors.As(err, &opErr) || errors.Is(err, patch.ErrTestFailed) {
		// The patch is well formed but does not apply: 422, as kube-apiserver.
		st := apierrors.NewBadRequest(err.Error())
		st.Code, st.Reason = http.StatusUnprocessableEntity, meta.StatusReasonInvalid
		return st
	}
	return apierrors.NewBadRequest(err.Error())
}
