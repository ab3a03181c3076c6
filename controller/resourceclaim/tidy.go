package resourceclaim

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/orkit/orkit/api/dra"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// tidyClaims tidies every claim of req's namespace that is owned by or
// reserved for the pod named req.Name.
func (r *Controller) tidyClaims(ctx context.Context, req controller.Request) error {
	var errs []error
	for _, c := range r.claims.Namespace(req.Namespace).List(nil) {
		owner, _, owned := owningPod(c)
		if !(owned && owner == req.Name) && !reservedByName(c, req.Name) {
			continue
		}
		if err := r.tidyClaim(ctx, c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func reservedByName(c *dra.ResourceClaim, pod string) bool {
	return slices.ContainsFunc(c.Status.ReservedFor, func(r dra.ResourceClaimConsumerReference) bool {
		return isPodRef(r) && r.Name == pod
	})
}

// podGone reports whether the pod a reference names will never use the
// claim: not in the informer, replaced (another UID) or done.
func (r *Controller) podGone(ns string, ref dra.ResourceClaimConsumerReference) bool {
	p, err := r.pods.Get(ns, ref.Name)
	return errors.Is(err, informer.ErrNotFound) || err == nil && (p.UID != ref.UID || podDone(p))
}

// tidyClaim drops stale pod reservations of c and, as Kubernetes does on
// the transition to "not used any more" (or when c is being deleted),
// deallocates it and removes the allocator's finalizer; an unreserved
// claim generated for a pod that is done or replaced is deleted.
func (r *Controller) tidyClaim(ctx context.Context, c *dra.ResourceClaim) error {
	valid := slices.DeleteFunc(slices.Clone(c.Status.ReservedFor), func(ref dra.ResourceClaimConsumerReference) bool {
		return isPodRef(ref) && r.podGone(c.Namespace, ref)
	})
	protected := slices.Contains(c.Finalizers, DeleteProtectionFinalizer)
	claims := client.For[dra.ResourceClaim](r.client, c.Namespace)
	release := len(valid) == 0 && protected && (len(c.Status.ReservedFor) > 0 || c.DeletionTimestamp != nil)
	if len(valid) < len(c.Status.ReservedFor) || release && c.Status.Allocation != nil {
		upd := meta.DeepCopy(c)
		upd.Status.ReservedFor = valid
		if release {
			upd.Status.Allocation, upd.Status.Devices = nil, nil
		}
		out, err := claims.UpdateStatus(ctx, upd)
		if err != nil {
			return ignoreGone(fmt.Errorf("update the status of resource claim %s/%s: %w", c.Namespace, c.Name, err))
		}
		c = out
	}
	if release && c.Status.Allocation == nil {
		upd := meta.DeepCopy(c)
		upd.Finalizers = slices.DeleteFunc(upd.Finalizers, func(f string) bool { return f == DeleteProtectionFinalizer })
		out, err := claims.Update(ctx, upd)
		if err != nil {
			return ignoreGone(fmt.Errorf("remove the finalizer of resource claim %s/%s: %w", c.Namespace, c.Name, err))
		}
		c = out
	}
	if len(valid) > 0 {
		return nil
	}
	return r.deleteIfOwnerDone(ctx, c)
}

// deleteIfOwnerDone deletes a generated claim whose pod is done or was
// replaced; a pod the informer does not know is left to the garbage
// collector (it may only not be seen yet).
func (r *Controller) deleteIfOwnerDone(ctx context.Context, c *dra.ResourceClaim) error {
	name, uid, ok := owningPod(c)
	if !ok {
		return nil
	}
	p, err := r.pods.Get(c.Namespace, name)
	if err != nil || p.UID == uid && !podDone(p) {
		return nil
	}
	pre := &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &c.UID}}
	if err := client.For[dra.ResourceClaim](r.client, c.Namespace).Delete(ctx, c.Name, pre); err != nil {
		return ignoreGone(fmt.Errorf("delete resource claim %s/%s: %w", c.Namespace, c.Name, err))
	}
	return nil
}

// ignoreGone drops NotFound: the claim is gone already.
func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
