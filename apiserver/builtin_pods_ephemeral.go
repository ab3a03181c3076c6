package apiserver

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// subresourceEphemeralContainers is the object subresource through which
// ephemeral containers are added to a running pod (kubectl debug).
const subresourceEphemeralContainers = "ephemeralcontainers"

// SubresourceUpdateValidator is the optional ability of a Strategy to
// check updates through one of its object subresources with other rules
// than ordinary updates (pods/ephemeralcontainers). The server calls it,
// instead of ValidateUpdate, for every update or patch through an object
// subresource.
type SubresourceUpdateValidator interface {
	ValidateSubresourceUpdate(ctx context.Context, obj, old meta.Object, subresource string) field.ErrorList
}

var _ SubresourceUpdateValidator = (*podStrategy)(nil)

// PrepareForUpdate: through pods/ephemeralcontainers only
// spec.ephemeralContainers changes (the rest is the stored pod, as
// kube-apiserver's ephemeral containers strategy keeps it); other updates
// go the default way.
func (s *podStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	if subresource == subresourceEphemeralContainers {
		n, o := obj.(*core.Pod), old.(*core.Pod)
		keep := meta.DeepCopy(o)
		keep.ResourceVersion, keep.ManagedFields = n.ResourceVersion, n.ManagedFields
		keep.Spec.EphemeralContainers = n.Spec.EphemeralContainers
		*n = *keep
	}
	s.DefaultStrategy.PrepareForUpdate(ctx, obj, old, subresource)
}

// ValidateSubresourceUpdate checks a pods/ephemeralcontainers update with
// core.ValidatePodEphemeralContainersUpdate, others as ValidateUpdate.
func (s *podStrategy) ValidateSubresourceUpdate(ctx context.Context, obj, old meta.Object, subresource string) field.ErrorList {
	if subresource == subresourceEphemeralContainers {
		return core.ValidatePodEphemeralContainersUpdate(obj.(*core.Pod), old.(*core.Pod))
	}
	return s.ValidateUpdate(ctx, obj, old)
}

// validateUpdate runs the strategy's update validation for an update
// through subresource ("" for the object itself).
func validateUpdate(ctx context.Context, st Strategy, obj, old meta.Object, subresource string) field.ErrorList {
	if v, ok := st.(SubresourceUpdateValidator); ok && subresource != "" {
		return v.ValidateSubresourceUpdate(ctx, obj, old, subresource)
	}
	return st.ValidateUpdate(ctx, obj, old)
}
