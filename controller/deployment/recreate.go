package deployment

import (
	"context"
	"slices"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller"
)

// rolloutRecreate takes one step of a Recreate rollout: old ReplicaSets
// to zero, wait until none of their pods is left, then the new
// ReplicaSet to full size.
func (r *Controller) rolloutRecreate(ctx context.Context, d *apps.Deployment, rsList []*apps.ReplicaSet) (controller.Result, error) {
	newRS, old, err := r.getNewReplicaSet(ctx, d, rsList, false)
	if err != nil {
		return controller.Result{}, err
	}
	all := append(slices.Clone(old), newRS)
	scaled := false
	for _, rs := range activeReplicaSets(old) {
		ok, err := r.scaleReplicaSet(ctx, rs, 0, d)
		if err != nil {
			return controller.Result{}, err
		}
		scaled = scaled || ok
	}
	if scaled || r.oldPodsRunning(old) {
		return r.syncRolloutStatus(ctx, all, newRS, d)
	}
	if newRS == nil {
		if newRS, old, err = r.getNewReplicaSet(ctx, d, rsList, true); err != nil {
			return controller.Result{}, err
		}
		all = append(slices.Clone(old), newRS)
	}
	if _, err := r.scaleReplicaSet(ctx, newRS, replicasOf(d.Spec.Replicas), d); err != nil {
		return controller.Result{}, err
	}
	if st := calculateStatus(all, newRS, d, r.now()); DeploymentComplete(d, &st) {
		if err := r.cleanup(ctx, d, old); err != nil {
			return controller.Result{}, err
		}
	}
	return r.syncRolloutStatus(ctx, all, newRS, d)
}

// oldPodsRunning reports whether any pod of an old ReplicaSet is still
// there and not terminal (terminating ones count: Recreate waits for
// them to be gone).
func (r *Controller) oldPodsRunning(old []*apps.ReplicaSet) bool {
	for _, rs := range old {
		if rs.Status.Replicas > 0 {
			return true
		}
	}
	for _, rs := range old {
		for _, p := range r.pods.Namespace(rs.Namespace).List(nil) {
			ref := meta.ControllerOf(&p.ObjectMeta)
			if ref != nil && ref.UID == rs.UID && p.Status.Phase != core.PodSucceeded && p.Status.Phase != core.PodFailed {
				return true
			}
		}
	}
	return false
}
