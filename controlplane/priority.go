package controlplane

import (
	"context"

	"github.com/orkit/orkit/admission"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheduling"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/store"
)

var priorityClassesGVR = meta.GroupVersionResource{Group: scheduling.GroupName, Version: scheduling.Version, Resource: "priorityclasses"}

// priorityClasses is the Priority plugin's view of the PriorityClasses:
// the server's watch cache, with a read from storage for a class the
// cache has not seen yet (created a moment before the pod naming it).
// Safe for concurrent use; it holds only the server.
type priorityClasses struct{ srv *apiserver.Server }

var _ admission.PriorityClassLister = priorityClasses{}

// GetPriorityClass implements admission.PriorityClassLister.
func (p priorityClasses) GetPriorityClass(ctx context.Context, name string) (*scheduling.PriorityClass, error) {
	if c, ok := p.srv.Cache(priorityClassesGVR); ok && c != nil {
		var found *scheduling.PriorityClass
		c.Objects(func(o meta.Object) {
			if pc, ok := o.(*scheduling.PriorityClass); ok && pc.Name == name {
				found = pc
			}
		})
		if found != nil {
			return found, nil
		}
	}
	st, ok := p.srv.Storage(priorityClassesGVR)
	if !ok {
		return nil, apierrors.NewNotFound(priorityClassesGVR.GroupResource(), name)
	}
	obj, err := st.Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*scheduling.PriorityClass), nil
}

// ListPriorityClasses implements admission.PriorityClassLister from the
// watch cache (storage when the resource has none).
func (p priorityClasses) ListPriorityClasses(ctx context.Context) ([]*scheduling.PriorityClass, error) {
	var out []*scheduling.PriorityClass
	if c, ok := p.srv.Cache(priorityClassesGVR); ok && c != nil {
		c.Objects(func(o meta.Object) {
			if pc, ok := o.(*scheduling.PriorityClass); ok {
				out = append(out, pc)
			}
		})
		return out, nil
	}
	st, ok := p.srv.Storage(priorityClassesGVR)
	if !ok {
		return nil, nil
	}
	res, err := st.ListRaw(ctx, "", store.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, kv := range res.KVs {
		obj, err := st.Decode(kv)
		if err != nil {
			return nil, err
		}
		out = append(out, obj.(*scheduling.PriorityClass))
	}
	return out, nil
}
