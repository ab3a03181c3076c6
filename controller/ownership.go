package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// SetOwners replaces obj's ownerReferences with refs through a merge patch
// conditional on the resourceVersion obj has (a conflict fails, so the
// caller retries on fresh state). An object that is gone is not an error.
// Controllers use it to adopt and release dependents.
func SetOwners[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, c *client.Client, obj PT, refs []meta.OwnerReference) error {
	if refs == nil {
		refs = []meta.OwnerReference{} // null would leave them in place
	}
	m := obj.GetObjectMeta()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": m.ResourceVersion, "ownerReferences": refs}})
	if err != nil {
		return err
	}
	_, err = client.For[T, PT](c, m.Namespace).Patch(ctx, m.Name, client.MergePatchType, patch)
	if err != nil && !apierrors.IsNotFound(err) {
		kind := strings.ToLower(obj.GetTypeMeta().Kind)
		if kind == "" {
			kind = fmt.Sprintf("%T", obj)
		}
		return fmt.Errorf("set owners of %s %s/%s: %w", kind, m.Namespace, m.Name, err)
	}
	return nil
}

// WithoutOwner returns refs without the reference to uid (a new slice).
func WithoutOwner(refs []meta.OwnerReference, uid meta.UID) []meta.OwnerReference {
	out := []meta.OwnerReference{}
	for _, r := range refs {
		if r.UID != uid {
			out = append(out, r)
		}
	}
	return out
}
