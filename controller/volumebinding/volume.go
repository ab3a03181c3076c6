package volumebinding

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// syncVolume keeps a volume's phase in step with its claim and reclaims
// it when the claim is gone.
func (c *Controller) syncVolume(ctx context.Context, pv *core.PersistentVolume) error {
	if pv.DeletionTimestamp != nil {
		return nil
	}
	r := pv.Spec.ClaimRef
	if r == nil {
		return c.phase(ctx, pv, core.VolumeAvailable, "")
	}
	if r.UID == "" {
		return c.phase(ctx, pv, core.VolumeAvailable, "") // pre-bound by name: the claim binds it
	}
	pvc, err := client.For[core.PersistentVolumeClaim](c.client, r.Namespace).Get(ctx, r.Name)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return fmt.Errorf("get claim %s/%s of volume %s: %w", r.Namespace, r.Name, pv.Name, err)
	case err == nil && pvc.UID == r.UID:
		if pvc.Spec.VolumeName == pv.Name {
			return c.phase(ctx, pv, core.VolumeBound, "")
		}
		return nil // the claim's side of the binding is on its way
	}
	// The claim is gone (or replaced by another of the same name). A
	// volume whose reclaim failed stays Failed, as in Kubernetes.
	if pv.Status.Phase == core.VolumeFailed {
		return nil
	}
	if err := c.phase(ctx, pv, core.VolumeReleased, ""); err != nil {
		return err
	}
	return c.reclaim(ctx, pv)
}

// reclaim applies the released volume's reclaim policy.
func (c *Controller) reclaim(ctx context.Context, pv *core.PersistentVolume) error {
	switch pv.Spec.PersistentVolumeReclaimPolicy {
	case core.PersistentVolumeReclaimRetain, "":
		return nil
	case core.PersistentVolumeReclaimDelete:
	default:
		return c.phase(ctx, pv, core.VolumeFailed, fmt.Sprintf("reclaim policy %q is not supported", pv.Spec.PersistentVolumeReclaimPolicy))
	}
	if pv.Annotations[AnnProvisionedBy] != "" {
		return nil // its provisioner deletes the storage, then the volume
	}
	uid := pv.UID
	err := client.For[core.PersistentVolume](c.client, "").Delete(ctx, pv.Name, &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete released volume %s: %w", pv.Name, err)
	}
	c.log.Info("deleted released volume", "volume", pv.Name)
	return nil
}

// setVolumePhase writes the volume's phase (and message) when it changed.
// It returns the volume as written (pv itself when nothing changed); pv,
// which may be the cache's, is not modified.
func (c *Controller) setVolumePhase(ctx context.Context, pv *core.PersistentVolume, phase core.PersistentVolumePhase, msg string) (*core.PersistentVolume, error) {
	if pv.Status.Phase == phase && pv.Status.Message == msg {
		return pv, nil
	}
	next := meta.DeepCopy(pv)
	now := meta.Now()
	next.Status = core.PersistentVolumeStatus{Phase: phase, Message: msg, LastPhaseTransitionTime: &now}
	updated, err := client.For[core.PersistentVolume](c.client, "").UpdateStatus(ctx, next)
	if apierrors.IsNotFound(err) {
		return pv, nil
	}
	if err != nil {
		return nil, fmt.Errorf("set volume %s %s: %w", pv.Name, phase, err)
	}
	return updated, nil
}

// phase is setVolumePhase for callers that need only the error.
func (c *Controller) phase(ctx context.Context, pv *core.PersistentVolume, phase core.PersistentVolumePhase, msg string) error {
	_, err := c.setVolumePhase(ctx, pv, phase, msg)
	return err
}
