package volumebinding

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/storage"
	"github.com/orkit/orkit/client"
)

// syncClaim binds an unbound claim, or finishes a binding half done.
func (c *Controller) syncClaim(ctx context.Context, pvc *core.PersistentVolumeClaim) error {
	if pvc.Spec.VolumeName != "" {
		return c.syncBoundClaim(ctx, pvc)
	}
	pv := FindVolume(c.volumes.List(nil), pvc)
	if pv == nil {
		if done, err := c.assignDefaultClass(ctx, pvc); done || err != nil {
			return err
		}
		c.explainPending(pvc)
		return c.setClaimPhase(ctx, pvc, core.ClaimPending, nil) // until a volume appears, or a provisioner makes one
	}
	return c.bind(ctx, pv, pvc)
}

// annBetaStorageClass is the claim annotation that named a class before
// spec.storageClassName existed.
const annBetaStorageClass = "volume.beta.kubernetes.io/storage-class"

// assignDefaultClass gives an unbound claim created without a class the
// default class, once there is one (Kubernetes' retroactive default
// StorageClass assignment); done reports that the claim was updated (its
// event brings it back).
func (c *Controller) assignDefaultClass(ctx context.Context, pvc *core.PersistentVolumeClaim) (done bool, err error) {
	if _, beta := pvc.Annotations[annBetaStorageClass]; beta || pvc.Spec.StorageClassName != nil {
		return false, nil
	}
	def := storage.DefaultClass(c.classes.List(nil))
	if def == nil {
		return false, nil
	}
	next := meta.DeepCopy(pvc)
	name := def.Name
	next.Spec.StorageClassName = &name
	if _, err := client.For[core.PersistentVolumeClaim](c.client, pvc.Namespace).Update(ctx, next); err != nil {
		return false, fmt.Errorf("assign default class %s to claim %s/%s: %w", name, pvc.Namespace, pvc.Name, err)
	}
	c.log.Info("assigned the default storage class", "claim", pvc.Namespace+"/"+pvc.Name, "class", name)
	return true, nil
}

// explainPending records why an unbound claim waits, as Kubernetes'
// persistent volume controller does (the recorder folds repeats).
func (c *Controller) explainPending(pvc *core.PersistentVolumeClaim) {
	if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
		return
	}
	sc, err := c.classes.Get("", *pvc.Spec.StorageClassName)
	if err != nil {
		return
	}
	if storage.BindingMode(sc) == storage.VolumeBindingWaitForFirstConsumer && pvc.Annotations[storage.AnnotationSelectedNode] == "" {
		c.rec.Event(pvc, core.EventTypeNormal, "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
		return
	}
	c.rec.Eventf(pvc, core.EventTypeNormal, "ExternalProvisioning", "Waiting for a volume to be created either by the external provisioner '%s' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.", sc.Provisioner)
}

// syncBoundClaim handles a claim that names its volume: it completes the
// volume's side when the volume is free or pre-bound to it, marks the
// claim Bound, or Lost when the volume is gone or taken.
func (c *Controller) syncBoundClaim(ctx context.Context, pvc *core.PersistentVolumeClaim) error {
	pv, err := client.For[core.PersistentVolume](c.client, "").Get(ctx, pvc.Spec.VolumeName)
	switch {
	case apierrors.IsNotFound(err):
		return c.setClaimPhase(ctx, pvc, core.ClaimLost, nil)
	case err != nil:
		return fmt.Errorf("get volume %s: %w", pvc.Spec.VolumeName, err)
	case pv.Spec.ClaimRef == nil || (claimedBy(pv, pvc) && pv.Spec.ClaimRef.UID == ""):
		return c.bind(ctx, pv, pvc)
	case claimedBy(pv, pvc):
		return c.setClaimPhase(ctx, pvc, core.ClaimBound, pv)
	}
	return c.setClaimPhase(ctx, pvc, core.ClaimLost, nil)
}

// bind writes the binding in Kubernetes' order: the volume's claimRef and
// phase first (its resourceVersion makes a second binder fail), then the
// claim's volumeName and phase.
func (c *Controller) bind(ctx context.Context, pv *core.PersistentVolume, pvc *core.PersistentVolumeClaim) error {
	pvs := client.For[core.PersistentVolume](c.client, "")
	if !claimedBy(pv, pvc) || pv.Spec.ClaimRef.UID == "" {
		next := meta.DeepCopy(pv)
		next.Spec.ClaimRef = &core.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
			Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion}
		if next.Annotations == nil {
			next.Annotations = map[string]string{}
		}
		next.Annotations[AnnBoundByController] = "yes"
		updated, err := pvs.Update(ctx, next)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return fmt.Errorf("bind volume %s to %s/%s: %w (retrying with fresh state)", pv.Name, pvc.Namespace, pvc.Name, err)
		}
		if err != nil {
			return fmt.Errorf("bind volume %s to %s/%s: %w", pv.Name, pvc.Namespace, pvc.Name, err)
		}
		pv = updated
	}
	pv, err := c.setVolumePhase(ctx, pv, core.VolumeBound, "")
	if err != nil {
		return err
	}
	if pvc.Spec.VolumeName != pv.Name || pvc.Annotations[AnnBindCompleted] != "yes" {
		next := meta.DeepCopy(pvc)
		next.Spec.VolumeName = pv.Name
		if next.Annotations == nil {
			next.Annotations = map[string]string{}
		}
		next.Annotations[AnnBindCompleted] = "yes"
		next.Annotations[AnnBoundByController] = "yes"
		updated, err := client.For[core.PersistentVolumeClaim](c.client, pvc.Namespace).Update(ctx, next)
		if err != nil {
			return fmt.Errorf("bind claim %s/%s to %s: %w", pvc.Namespace, pvc.Name, pv.Name, err)
		}
		pvc = updated
	}
	c.log.Info("bound claim", "claim", pvc.Namespace+"/"+pvc.Name, "volume", pv.Name)
	return c.setClaimPhase(ctx, pvc, core.ClaimBound, pv)
}

// setClaimPhase writes the claim's phase (and, when Bound, the volume's
// capacity and access modes) when they changed.
func (c *Controller) setClaimPhase(ctx context.Context, pvc *core.PersistentVolumeClaim, phase core.PersistentVolumeClaimPhase, pv *core.PersistentVolume) error {
	st := core.PersistentVolumeClaimStatus{Phase: phase, Conditions: pvc.Status.Conditions, AllocatedResources: pvc.Status.AllocatedResources}
	if pv != nil {
		st.Capacity, st.AccessModes = pv.Spec.Capacity, pv.Spec.AccessModes
	}
	if sameClaimStatus(&pvc.Status, &st) {
		return nil
	}
	next := meta.DeepCopy(pvc)
	next.Status = st
	_, err := client.For[core.PersistentVolumeClaim](c.client, pvc.Namespace).UpdateStatus(ctx, next)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("set claim %s/%s %s: %w", pvc.Namespace, pvc.Name, phase, err)
	}
	return nil
}

func sameClaimStatus(a, b *core.PersistentVolumeClaimStatus) bool {
	if a.Phase != b.Phase || len(a.AccessModes) != len(b.AccessModes) || len(a.Capacity) != len(b.Capacity) {
		return false
	}
	for i := range a.AccessModes {
		if a.AccessModes[i] != b.AccessModes[i] {
			return false
		}
	}
	for k, v := range a.Capacity {
		if w, ok := b.Capacity[k]; !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}
