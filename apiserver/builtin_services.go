package apiserver

import (
	"context"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// serviceStrategy clears, on an update that changes a Service's type, the
// fields the new type no longer uses and the client left unchanged
// (core.DropServiceTypeDependentFields), as kube-apiserver's Service
// strategy does: a client may turn a ClusterIP or NodePort Service into an
// ExternalName one by setting only the type and the external name. The
// ServiceAllocator then allocates what the new type needs and releases
// what the old one held.
type serviceStrategy struct {
	*DefaultStrategy
}

// PrepareForUpdate runs the default preparation, then, on a main-resource
// update, drops the type-dependent fields.
func (s *serviceStrategy) PrepareForUpdate(ctx context.Context, obj, old meta.Object, subresource string) {
	s.DefaultStrategy.PrepareForUpdate(ctx, obj, old, subresource)
	if subresource != "" {
		return
	}
	svc, ok1 := obj.(*core.Service)
	prev, ok2 := old.(*core.Service)
	if ok1 && ok2 {
		core.DropServiceTypeDependentFields(svc, prev)
	}
}
