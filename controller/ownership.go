package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
)

// SetOwners replaces obj's ownerReferences with refs through a merge patch
// conditional on the resourceVersion obj has (a conflict fails, so the
// caller retries on fresh state). An object that is gone is not an error.
// Controllers use it to adopt and release dependents.
func SetOwners[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, c *client.Client, obj PT, refs []meta.OwnerReference) error {
	_, err := patchOwners[T, PT](ctx, c, obj, refs, "")
	return err
}

// patchOwners sets obj's ownerReferences to refs, and adds finalizer when
// not empty, through a merge patch conditional on obj's resourceVersion.
// It returns the patched object, or nil when obj is gone.
func patchOwners[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, c *client.Client, obj PT, refs []meta.OwnerReference, finalizer string) (PT, error) {
	if refs == nil {
		refs = []meta.OwnerReference{} // null would leave them in place
	}
	m := obj.GetObjectMeta()
	md := map[string]any{"resourceVersion": m.ResourceVersion, "ownerReferences": refs}
	if finalizer != "" && !slices.Contains(m.Finalizers, finalizer) {
		md["finalizers"] = append(slices.Clone(m.Finalizers), finalizer)
	}
	patch, err := json.Marshal(map[string]any{"metadata": md})
	if err != nil {
		return nil, err
	}
	out, err := client.For[T, PT](c, m.Namespace).Patch(ctx, m.Name, client.MergePatchType, patch)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		kind := strings.ToLower(obj.GetTypeMeta().Kind)
		if kind == "" {
			kind = fmt.Sprintf("%T", obj)
		}
		return nil, fmt.Errorf("set owners of %s %s/%s: %w", kind, m.Namespace, m.Name, err)
	}
	return out, nil
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

// Claim says which objects of its namespace an owner (a ReplicaSet, a
// Job, a StatefulSet, ...) claims as its dependents and how it adopts
// them, as Kubernetes' controller reference manager does. ClaimObjects
// applies it. PT is the dependents' pointer type (*core.Pod). A Claim is a
// plain value, made per reconcile.
type Claim[PT meta.Object] struct {
	// Owner is the owner as cached: its UID identifies what it controls,
	// and an owner being deleted adopts nothing. Required.
	Owner meta.Object
	// Ref is the controller reference the owner puts on what it adopts
	// (Controller and BlockOwnerDeletion set). Required.
	Ref meta.OwnerReference
	// Selector matches what the owner claims; nil claims nothing.
	Selector labels.Selector
	// Match, when set, narrows what the owner claims beyond the selector: a
	// StatefulSet claims only pods named for one of its ordinals. An object
	// the owner controls that the selector matches but Match rejects is
	// neither kept nor released.
	Match func(PT) bool
	// Adoptable, when set, narrows which orphans are adopted: a Job adopts
	// no pod that has already terminated. Objects being deleted are never
	// adopted.
	Adoptable func(PT) bool
	// Recheck, when set, reads the owner live before the first adoption;
	// nothing is adopted when it is gone, replaced (another UID) or being
	// deleted, which the cache may not show yet. Nil trusts Owner.
	Recheck func(ctx context.Context) (meta.Object, error)
	// Finalizer, when not empty, is added to every adopted object along
	// with the owner reference (a Job's pod tracking finalizer).
	Finalizer string
}

// ClaimObjects returns the objects among candidates (the owner's
// namespace, from a cache) that cl.Owner claims: those it controls that
// cl.Selector (and cl.Match) still match, then the orphans it adopts.
// Objects it controls that the selector no longer matches are released
// (the owner reference removed). Adoptions and releases are merge patches
// conditional on the object's resourceVersion: a conflict fails the claim
// (wrapping the server's Status), so the caller retries on fresh state; an
// object gone meanwhile is skipped. Controlled objects are returned as
// given (the cache's: do not modify them), adopted ones as the server
// answered the patch.
func ClaimObjects[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, c *client.Client, cl Claim[PT], candidates []PT) ([]PT, error) {
	owner := cl.Owner.GetObjectMeta()
	sel := cl.Selector
	if sel == nil {
		sel = labels.Nothing()
	}
	var owned, adopt []PT
	for _, obj := range candidates {
		m := obj.GetObjectMeta()
		ref := meta.ControllerOf(m)
		match := sel.Matches(labels.Set(m.Labels))
		mine := ref != nil && ref.UID == owner.UID
		switch {
		case mine && !match:
			if _, err := patchOwners[T, PT](ctx, c, obj, WithoutOwner(m.OwnerReferences, owner.UID), ""); err != nil {
				return nil, err
			}
		case cl.Match != nil && !cl.Match(obj):
		case mine:
			owned = append(owned, obj)
		case ref == nil && match && adoptable(cl, obj):
			adopt = append(adopt, obj)
		}
	}
	if len(adopt) == 0 {
		return owned, nil
	}
	if ok, err := ownerCanAdopt(ctx, cl); err != nil || !ok {
		return owned, err
	}
	for _, obj := range adopt {
		refs := append(slices.Clone(obj.GetObjectMeta().OwnerReferences), cl.Ref)
		got, err := patchOwners[T, PT](ctx, c, obj, refs, cl.Finalizer)
		if err != nil {
			return nil, err
		}
		if got != nil {
			owned = append(owned, got)
		}
	}
	return owned, nil
}

// adoptable reports whether the orphan obj may be adopted under cl, the
// owner's state aside.
func adoptable[PT meta.Object](cl Claim[PT], obj PT) bool {
	return obj.GetObjectMeta().DeletionTimestamp == nil && (cl.Adoptable == nil || cl.Adoptable(obj))
}

// ownerCanAdopt reports whether the owner may adopt: not being deleted,
// as cached and, with Recheck, live.
func ownerCanAdopt[PT meta.Object](ctx context.Context, cl Claim[PT]) (bool, error) {
	owner := cl.Owner.GetObjectMeta()
	if owner.DeletionTimestamp != nil {
		return false, nil
	}
	if cl.Recheck == nil {
		return true, nil
	}
	fresh, err := cl.Recheck(ctx)
	if err != nil {
		return false, fmt.Errorf("recheck %s %s/%s before adopting: %w", strings.ToLower(cl.Ref.Kind), owner.Namespace, owner.Name, err)
	}
	m := fresh.GetObjectMeta()
	return m.UID == owner.UID && m.DeletionTimestamp == nil, nil
}

// ControllerIndex is the name of the index IndexByController adds: each
// object under its namespace and its controller's UID ("ns/uid"), or
// under OrphanKey(namespace) ("ns/") when it has no controller.
const ControllerIndex = "orkit.io/controller"

// OrphanKey is ControllerIndex's value for the objects of namespace that
// have no controller.
func OrphanKey(namespace string) string { return namespace + "/" }

// controllerKey is ControllerIndex's value for the objects of namespace
// that the object with uid controls (an owner reference never crosses
// namespaces).
func controllerKey(namespace string, uid meta.UID) string { return namespace + "/" + string(uid) }

// IndexByController adds ControllerIndex to ix unless it has it (several
// controllers share one pod informer). ClaimCandidates reads it.
func IndexByController[T meta.Object](ix *informer.Indexer[T]) error {
	err := ix.AddIndexers(informer.Indexers[T]{ControllerIndex: func(obj T) ([]string, error) {
		m := obj.GetObjectMeta()
		if ref := meta.ControllerOf(m); ref != nil {
			return []string{controllerKey(m.Namespace, ref.UID)}, nil
		}
		return []string{OrphanKey(m.Namespace)}, nil
	}})
	if errors.Is(err, informer.ErrIndexConflict) {
		return nil
	}
	return err
}

// ClaimCandidates returns the objects of ix an owner may claim with
// ClaimObjects: those it controls and its namespace's orphans. It costs
// what the owner has, not what the namespace has (a namespace of 150,000
// pods and 150 ReplicaSets made every ReplicaSet sync scan them all).
// ix must have ControllerIndex (IndexByController).
func ClaimCandidates[T meta.Object](ix *informer.Indexer[T], owner meta.Object) ([]T, error) {
	m := owner.GetObjectMeta()
	mine, err := ix.ByIndex(ControllerIndex, controllerKey(m.Namespace, m.UID))
	if err != nil {
		return nil, err
	}
	orphans, err := ix.ByIndex(ControllerIndex, OrphanKey(m.Namespace))
	if err != nil {
		return nil, err
	}
	return append(mine, orphans...), nil
}
