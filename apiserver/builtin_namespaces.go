package apiserver

import (
	"context"
	"net/http"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// namespaceStrategy makes namespaces Active on create and, on delete,
// Terminating until the namespace controller has emptied them and cleared
// spec.finalizers through the finalize subresource, as Kubernetes does.
type namespaceStrategy struct {
	*DefaultStrategy
}

var _ DeleteStrategy = (*namespaceStrategy)(nil)

func (s *namespaceStrategy) PrepareForCreate(ctx context.Context, obj meta.Object) {
	s.DefaultStrategy.PrepareForCreate(ctx, obj)
	obj.(*core.Namespace).Status.Phase = core.NamespaceActive
}

// BeginDelete marks the namespace Terminating.
func (s *namespaceStrategy) BeginDelete(obj meta.Object) {
	obj.(*core.Namespace).Status.Phase = core.NamespaceTerminating
}

// Pending keeps a deleted namespace while spec.finalizers is not empty.
func (s *namespaceStrategy) Pending(obj meta.Object) bool {
	return len(obj.(*core.Namespace).Spec.Finalizers) > 0
}

// serveFinalize handles PUT namespaces/<name>/finalize: it replaces
// spec.finalizers and deletes a terminating namespace left with none.
func (s *Server) serveFinalize(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	if req.Info.Verb != "update" {
		writeError(w, apierrors.NewMethodNotSupported(req.resource.gr(), req.Info.Verb))
		return
	}
	body, _, err := readBody(r, "application/json", "application/yaml")
	if err != nil {
		writeError(w, err)
		return
	}
	in := &core.Namespace{}
	if err := decodeStrict(body, in, false); err != nil {
		writeError(w, err)
		return
	}
	out, err := req.resource.storage.GuaranteedUpdate(ctx, "", req.Info.Name, true, func(cur meta.Object) (meta.Object, error) {
		ns := meta.DeepCopy(cur.(*core.Namespace))
		ns.Spec.Finalizers = in.Spec.Finalizers
		return ns, nil // deleted by GuaranteedUpdate when nothing is pending
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
