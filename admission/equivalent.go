package admission

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/admissionreview"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// EquivalentResource is a resource served through another group or
// version for the same stored objects (autoscaling/v1 and autoscaling/v2
// horizontalpodautoscalers), with the kind its objects have there.
type EquivalentResource struct {
	Resource meta.GroupVersionResource
	Kind     meta.GroupVersionKind
}

// EquivalentResourceMapper lists the resources equivalent to a requested
// one, as kube-apiserver's EquivalentResourceRegistry does: for a
// subresource, the same subresource of the equivalents (with its kind
// there, such as autoscaling/v1 Scale). The request's own resource may be
// in the list. Implementations must be safe for concurrent use.
type EquivalentResourceMapper interface {
	EquivalentResources(resource meta.GroupVersionResource, subresource string) []EquivalentResource
}

// ObjectConverter converts an object (JSON) to another version of its
// kind, for a webhook matched through an equivalent resource. It returns
// a clear error for an object it cannot convert. Implementations must be
// safe for concurrent use.
type ObjectConverter interface {
	ConvertObject(ctx context.Context, object []byte, to meta.GroupVersionKind) ([]byte, error)
}

// convertFor converts object (JSON of the request's kind, a.Kind) to the
// kind inv names, when a webhook matched an equivalent resource; it is
// returned as it is otherwise.
func (c *webhookCaller) convertFor(ctx context.Context, object []byte, from, to meta.GroupVersionKind) ([]byte, error) {
	if len(object) == 0 || from == to {
		return object, nil
	}
	if c.converter == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no converter configured for %s to %s", from, to))
	}
	out, err := c.converter.ConvertObject(ctx, object, to)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("convert %s to %s: %w", from, to, err))
	}
	return out, nil
}

// reviewFor makes the review of one webhook call and returns it with
// the object it carries: the object and old object as the webhook matched
// them (inv's kind and resource, converted when that is an equivalent
// one), the request's own kind and resource in requestKind and
// requestResource.
func (c *webhookCaller) reviewFor(ctx context.Context, a, inv *Attributes, object []byte) (*admissionreview.AdmissionReview, []byte, error) {
	var old []byte
	if a.OldObject != nil {
		var err error
		if old, err = json.Marshal(a.OldObject); err != nil {
			return nil, nil, apierrors.NewInternalError(err)
		}
	}
	object, err := c.convertFor(ctx, object, a.Kind, inv.Kind)
	if err != nil {
		return nil, nil, err
	}
	if old, err = c.convertFor(ctx, old, a.Kind, inv.Kind); err != nil {
		return nil, nil, err
	}
	return buildReview(a, inv, object, old), object, nil
}
