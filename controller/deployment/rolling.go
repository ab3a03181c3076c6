package deployment

import (
	"context"
	"slices"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/controller"
)

// rolloutRolling takes one step of a rolling update: scale the new
// ReplicaSet up within maxSurge, else scale old ones down within
// maxUnavailable, else (when complete) clean up old revisions.
func (r *Controller) rolloutRolling(ctx context.Context, d *apps.Deployment, rsList []*apps.ReplicaSet) (controller.Result, error) {
	newRS, old, err := r.getNewReplicaSet(ctx, d, rsList, true)
	if err != nil {
		return controller.Result{}, err
	}
	all := append(slices.Clone(old), newRS)
	scaled, err := r.reconcileNewReplicaSet(ctx, all, newRS, d)
	if err != nil {
		return controller.Result{}, err
	}
	if scaled {
		return r.syncRolloutStatus(ctx, all, newRS, d)
	}
	scaled, err = r.reconcileOldReplicaSets(ctx, all, activeReplicaSets(old), newRS, d)
	if err != nil {
		return controller.Result{}, err
	}
	if scaled {
		return r.syncRolloutStatus(ctx, all, newRS, d)
	}
	if st := calculateStatus(all, newRS, d, r.now()); DeploymentComplete(d, &st) {
		if err := r.cleanup(ctx, d, old); err != nil {
			return controller.Result{}, err
		}
	}
	return r.syncRolloutStatus(ctx, all, newRS, d)
}

func activeReplicaSets(rss []*apps.ReplicaSet) []*apps.ReplicaSet {
	var out []*apps.ReplicaSet
	for _, rs := range rss {
		if rs != nil && rsReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

func (r *Controller) reconcileNewReplicaSet(ctx context.Context, all []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) (bool, error) {
	want := replicasOf(d.Spec.Replicas)
	switch {
	case rsReplicas(newRS) == want:
		return false, nil
	case rsReplicas(newRS) > want:
		return r.scaleReplicaSet(ctx, newRS, want, d)
	}
	return r.scaleReplicaSet(ctx, newRS, NewRSNewReplicas(d, all, newRS), d)
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// maxUnavailable allows: first their unhealthy pods, then available ones.
func (r *Controller) reconcileOldReplicaSets(ctx context.Context, all, old []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) (bool, error) {
	if sum(old, rsReplicas) == 0 {
		return false, nil
	}
	minAvailable := replicasOf(d.Spec.Replicas) - MaxUnavailable(d)
	newUnavailable := rsReplicas(newRS) - availableCount(newRS)
	maxScaledDown := sum(all, podCount) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	slices.SortFunc(old, byCreation)
	cleaned, err := r.cleanupUnhealthyReplicas(ctx, old, d, maxScaledDown)
	if err != nil {
		return false, err
	}
	scaled, err := r.scaleDownOldForRollingUpdate(ctx, all, old, d)
	if err != nil {
		return false, err
	}
	return cleaned+scaled > 0, nil
}

// cleanupUnhealthyReplicas removes old ReplicaSets' unavailable replicas,
// at most max of them.
func (r *Controller) cleanupUnhealthyReplicas(ctx context.Context, old []*apps.ReplicaSet, d *apps.Deployment, maxCleanup int32) (int32, error) {
	var total int32
	for _, rs := range old {
		if total >= maxCleanup {
			break
		}
		unhealthy := rsReplicas(rs) - availableCount(rs)
		if rsReplicas(rs) == 0 || unhealthy <= 0 {
			continue
		}
		n := min(maxCleanup-total, unhealthy)
		if _, err := r.scaleReplicaSet(ctx, rs, rsReplicas(rs)-n, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// scaleDownOldForRollingUpdate scales old ReplicaSets (oldest first)
// down by the available pods above minAvailable.
func (r *Controller) scaleDownOldForRollingUpdate(ctx context.Context, all, old []*apps.ReplicaSet, d *apps.Deployment) (int32, error) {
	minAvailable := replicasOf(d.Spec.Replicas) - MaxUnavailable(d)
	available := sum(all, availableCount)
	if available <= minAvailable {
		return 0, nil
	}
	budget := available - minAvailable
	var total int32
	for _, rs := range old {
		if total >= budget {
			break
		}
		if rsReplicas(rs) == 0 {
			continue
		}
		n := min(rsReplicas(rs), budget-total)
		if _, err := r.scaleReplicaSet(ctx, rs, rsReplicas(rs)-n, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}
