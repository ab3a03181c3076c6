package apiserver

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

// The pods' object subresources besides status: ephemeralcontainers adds
// ephemeral containers to a running pod (kubectl debug); resize changes
// its containers' cpu and memory in place.
const (
	subresourceEphemeralContainers = "ephemeralcontainers"
	subresourceResize              = "resize"
)

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
// spec.ephemeralContainers changes, through pods/resize only the
// containers' resources and resize policies (the rest is the stored pod,
// as kube-apiserver's subresource strategies keep it); other updates go
// the default way.
func (s *podStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	switch subresource {
	case subresourceEphemeralContainers, subresourceResize:
		n, o := obj.(*core.Pod), old.(*core.Pod)
		keep := meta.DeepCopy(o)
		keep.ResourceVersion, keep.ManagedFields = n.ResourceVersion, n.ManagedFields
		if subresource == subresourceEphemeralContainers {
			keep.Spec.EphemeralContainers = n.Spec.EphemeralContainers
		} else {
			keep.Spec.Containers = resizedContainers(n.Spec.Containers, keep.Spec.Containers)
			keep.Spec.InitContainers = resizedContainers(n.Spec.InitContainers, keep.Spec.InitContainers)
		}
		*n = *keep
	}
	s.DefaultStrategy.PrepareForUpdate(ctx, obj, old, subresource)
}

// resizedContainers returns the stored containers with the resources and
// resize policies of the update's. A list whose length changed is taken
// whole, and names are taken too, so that validation reports containers
// added, removed, renamed or reordered rather than the update losing them.
func resizedContainers(update, stored []core.Container) []core.Container {
	if len(update) != len(stored) {
		return update
	}
	for i := range stored {
		stored[i].Name = update[i].Name
		stored[i].Resources = update[i].Resources
		stored[i].ResizePolicy = update[i].ResizePolicy
	}
	return stored
}

// ValidateSubresourceUpdate checks a pods/ephemeralcontainers update with
// core.ValidatePodEphemeralContainersUpdate, a pods/resize one with
// core.ValidatePodResize, others as ValidateUpdate.
func (s *podStrategy) ValidateSubresourceUpdate(ctx context.Context, obj, old meta.Object, subresource string) field.ErrorList {
	switch subresource {
	case subresourceEphemeralContainers:
		return core.ValidatePodEphemeralContainersUpdate(obj.(*core.Pod), old.(*core.Pod))
	case subresourceResize:
		return core.ValidatePodResize(obj.(*core.Pod), old.(*core.Pod))
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
