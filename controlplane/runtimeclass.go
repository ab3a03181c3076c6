package controlplane

import (
	"context"

	"github.com/orkit/orkit/admission"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/node"
	"github.com/orkit/orkit/apiserver"
)

var runtimeClassesGVR = meta.GroupVersionResource{Group: node.GroupName, Version: node.Version, Resource: "runtimeclasses"}

// runtimeClasses reads RuntimeClasses for the RuntimeClass admission
// plugin from the API server's watch cache, falling back to storage.
type runtimeClasses struct{ srv *apiserver.Server }

var _ admission.RuntimeClassGetter = runtimeClasses{}

// GetRuntimeClass implements admission.RuntimeClassGetter.
func (r runtimeClasses) GetRuntimeClass(ctx context.Context, name string) (*node.RuntimeClass, error) {
	if c, ok := r.srv.Cache(runtimeClassesGVR); ok && c != nil {
		var found *node.RuntimeClass
		c.Objects(func(o meta.Object) {
			if rc, ok := o.(*node.RuntimeClass); ok && rc.Name == name {
				found = rc
			}
		})
		if found != nil {
			return found, nil
		}
	}
	st, ok := r.srv.Storage(runtimeClassesGVR)
	if !ok {
		return nil, apierrors.NewNotFound(runtimeClassesGVR.GroupResource(), name)
	}
	obj, err := st.Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*node.RuntimeClass), nil
}
