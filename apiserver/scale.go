package apiserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/orkit/orkit/api/autoscaling"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// handleScale serves the scale subresource (get, update, patch) through
// the resource's ScaleAccessor, as autoscaling/v1 Scale objects.
func (s *Server) handleScale(ctx context.Context, w http.ResponseWriter, r *http.Request, req *Request) {
	res := req.resource
	switch req.Info.Verb {
	case "get":
		obj, err := s.getVisible(ctx, req)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, s.scaleOf(res, obj))
	case "update", "patch":
		body, mt, err := readBody(r, "application/json", "application/yaml", "application/merge-patch+json",
			"application/json-patch+json", "application/strategic-merge-patch+json")
		if err != nil {
			writeError(w, err)
			return
		}
		out, err := res.storage.GuaranteedUpdate(ctx, req.Info.Namespace, req.Info.Name, true, func(cur meta.Object) (meta.Object, error) {
			sc := s.scaleOf(res, cur)
			if req.Info.Verb == "patch" {
				if err := patchInto(mt, sc, body); err != nil {
					return nil, err
				}
			} else {
				// A PUT replaces the Scale: decode into a fresh one, so an
				// omitted replicas (0, under omitempty) means 0.
				sc = &autoscaling.Scale{}
				if err := decodeStrict(body, sc, false); err != nil {
					return nil, err
				}
			}
			if sc.ResourceVersion != "" && sc.ResourceVersion != cur.GetObjectMeta().ResourceVersion {
				return nil, apierrors.NewConflict(res.gr(), req.Info.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
			}
			if sc.Spec.Replicas < 0 {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", sc.Spec.Replicas))
			}
			next := meta.DeepCopy(cur)
			res.Scale.Set(next, sc.Spec.Replicas)
			return s.prepareUpdate(ctx, req, next, cur)
		})
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, s.scaleOf(res, out))
	default:
		writeError(w, apierrors.NewMethodNotSupported(res.gr(), req.Info.Verb))
	}
}

func (s *Server) scaleOf(res *served, obj meta.Object) *autoscaling.Scale {
	spec, status, sel := res.Scale.Get(obj)
	m := obj.GetObjectMeta()
	return &autoscaling.Scale{
		TypeMeta: meta.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: meta.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
			CreationTimestamp: m.CreationTimestamp,
		},
		Spec:   autoscaling.ScaleSpec{Replicas: spec},
		Status: autoscaling.ScaleStatus{Replicas: status, Selector: sel},
	}
}
