package deployment

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/orkit/orkit/api/apps"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
)

// sync handles a paused Deployment or a scaling event: scale the
// ReplicaSets (proportionally during a rollout) and update the status,
// without rolling anything out.
func (r *Controller) sync(ctx context.Context, d *apps.Deployment, rsList []*apps.ReplicaSet) error {
	newRS, old, err := r.getNewReplicaSet(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := r.scale(ctx, d, newRS, old); err != nil {
		return err
	}
	if c := GetCondition(&d.Status, apps.DeploymentProgressing); d.Spec.Paused && hasProgressDeadline(d) &&
		(c == nil || c.Reason != apps.TimedOutReason) {
		SetCondition(&d.Status, NewCondition(apps.DeploymentProgressing, meta.ConditionUnknown, apps.PausedDeployReason,
			"Deployment is paused", r.now()))
	}
	all := append(slices.Clone(old), newRS)
	if newRS != nil && DeploymentComplete(d, &d.Status) && !d.Spec.Paused {
		if err := r.cleanup(ctx, d, old); err != nil {
			return err
		}
	}
	return r.writeStatus(ctx, d, calculateStatus(all, newRS, d, r.now()))
}

// syncStatusOnly refreshes the status of a Deployment being deleted.
func (r *Controller) syncStatusOnly(ctx context.Context, d *apps.Deployment) error {
	var rss []*apps.ReplicaSet
	for _, rs := range r.rss.Namespace(d.Namespace).List(nil) {
		if ref := meta.ControllerOf(&rs.ObjectMeta); ref != nil && ref.UID == d.UID {
			rss = append(rss, meta.DeepCopy(rs))
		}
	}
	newRS, old := findNewReplicaSet(d, rss)
	return r.writeStatus(ctx, d, calculateStatus(append(old, newRS), newRS, d, r.now()))
}

// scale resizes d's ReplicaSets to its replicas: the only active one
// directly, else old ones to zero once the new one is saturated, else
// proportionally to their size during a rolling update.
func (r *Controller) scale(ctx context.Context, d *apps.Deployment, newRS *apps.ReplicaSet, old []*apps.ReplicaSet) error {
	want := replicasOf(d.Spec.Replicas)
	active := activeReplicaSets(append(slices.Clone(old), newRS))
	if len(active) <= 1 {
		target := newRS
		if len(active) == 1 {
			target = active[0]
		} else if target == nil && len(old) > 0 {
			target = old[len(old)-1]
		}
		if target == nil {
			return nil
		}
		_, err := r.scaleReplicaSet(ctx, target, want, d)
		return err
	}
	if newRS != nil && rsReplicas(newRS) == want && newRS.Status.AvailableReplicas == want {
		for _, rs := range activeReplicaSets(old) {
			if _, err := r.scaleReplicaSet(ctx, rs, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if !IsRollingUpdate(d) {
		return nil
	}
	sizes := ProportionalSizes(d, active)
	for i, rs := range active {
		if _, err := r.scaleReplicaSet(ctx, rs, sizes[i], d); err != nil {
			return err
		}
	}
	return nil
}

// ProportionalSizes spreads the change of d's size (replicas+maxSurge
// minus what active runs) over the active ReplicaSets in proportion to
// their size, as Kubernetes does: each gets its share of its size at the
// Deployment size it was last scaled for (max-replicas annotation), the
// rounding leftover goes to the largest. It returns the new sizes in the
// order of active.
func ProportionalSizes(d *apps.Deployment, active []*apps.ReplicaSet) []int32 {
	want := replicasOf(d.Spec.Replicas)
	allowed := want
	if want > 0 {
		allowed += MaxSurge(d)
	}
	toAdd := allowed - sum(active, rsReplicas)
	order := slices.Clone(active)
	slices.SortStableFunc(order, func(a, b *apps.ReplicaSet) int {
		if rsReplicas(a) != rsReplicas(b) {
			return int(rsReplicas(b) - rsReplicas(a)) // larger first
		}
		if toAdd > 0 {
			return -byCreation(a, b) // newer first when growing
		}
		return byCreation(a, b)
	})
	next := map[*apps.ReplicaSet]int32{}
	var added int32
	for _, rs := range order {
		p := proportion(rs, d, toAdd, added)
		next[rs] = rsReplicas(rs) + p
		added += p
	}
	if len(order) > 0 && added != toAdd {
		next[order[0]] = max(next[order[0]]+toAdd-added, 0)
	}
	out := make([]int32, len(active))
	for i, rs := range active {
		out[i] = max(next[rs], 0)
	}
	return out
}

func proportion(rs *apps.ReplicaSet, d *apps.Deployment, toAdd, added int32) int32 {
	if rsReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	f := fraction(rs, d)
	left := toAdd - added
	// Clamped to the direction of the change: an annotation edited by
	// hand (a max-replicas below the ReplicaSet's size) must not grow a
	// ReplicaSet while the Deployment shrinks, or the other way round.
	if toAdd > 0 {
		return max(min(f, left), 0)
	}
	return min(max(f, left), 0)
}

func fraction(rs *apps.ReplicaSet, d *apps.Deployment) int32 {
	want := replicasOf(d.Spec.Replicas)
	if want == 0 {
		return -rsReplicas(rs)
	}
	size := want + MaxSurge(d)
	annotated, err := strconv.Atoi(rs.Annotations[apps.MaxReplicasAnnotation])
	if err != nil || annotated <= 0 {
		annotated = int(d.Status.Replicas)
	}
	if annotated <= 0 {
		return 0
	}
	n := float64(rsReplicas(rs)) * float64(size) / float64(annotated)
	return int32(math.Round(n)) - rsReplicas(rs)
}

// calculateStatus returns d's status from its ReplicaSets (newRS may be
// nil), with the Available condition.
func calculateStatus(all []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment, now time.Time) apps.DeploymentStatus {
	st := apps.DeploymentStatus{
		ObservedGeneration: d.Generation,
		Replicas:           sum(all, func(rs *apps.ReplicaSet) int32 { return rs.Status.Replicas }),
		ReadyReplicas:      sum(all, func(rs *apps.ReplicaSet) int32 { return rs.Status.ReadyReplicas }),
		AvailableReplicas:  sum(all, func(rs *apps.ReplicaSet) int32 { return rs.Status.AvailableReplicas }),
		CollisionCount:     d.Status.CollisionCount,
		Conditions:         slices.Clone(d.Status.Conditions),
	}
	if newRS != nil {
		st.UpdatedReplicas = newRS.Status.Replicas
	}
	st.UnavailableReplicas = max(replicasOf(d.Spec.Replicas)-st.AvailableReplicas, 0)
	if st.AvailableReplicas >= replicasOf(d.Spec.Replicas)-MaxUnavailable(d) {
		SetCondition(&st, NewCondition(apps.DeploymentAvailable, meta.ConditionTrue, apps.MinimumReplicasAvailable,
			"Deployment has minimum availability.", now))
	} else {
		SetCondition(&st, NewCondition(apps.DeploymentAvailable, meta.ConditionFalse, apps.MinimumReplicasUnavailable,
			"Deployment does not have minimum availability.", now))
	}
	setReplicaFailure(&st, all, now)
	return st
}

// setReplicaFailure copies a ReplicaSet's ReplicaFailure condition (pods
// it could not create) into the Deployment's status, and removes it when
// no ReplicaSet has one.
func setReplicaFailure(st *apps.DeploymentStatus, all []*apps.ReplicaSet, now time.Time) {
	for _, rs := range all {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == apps.ReplicaSetReplicaFailure && c.Status == meta.ConditionTrue {
				SetCondition(st, NewCondition(apps.DeploymentReplicaFailure, meta.ConditionTrue, c.Reason, c.Message, now))
				return
			}
		}
	}
	RemoveCondition(st, apps.DeploymentReplicaFailure)
}

// hasProgressDeadline reports whether d's rollouts can time out
// (progressDeadlineSeconds set and not MaxInt32).
func hasProgressDeadline(d *apps.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// syncRolloutStatus sets the Progressing condition from the rollout's
// progress and deadline, writes the status, and asks to be called again
// when the deadline would pass.
func (r *Controller) syncRolloutStatus(ctx context.Context, all []*apps.ReplicaSet, newRS *apps.ReplicaSet, d *apps.Deployment) (controller.Result, error) {
	now := r.now()
	st := calculateStatus(all, newRS, d, now)
	hasDeadline := hasProgressDeadline(d)
	if !hasDeadline {
		RemoveCondition(&st, apps.DeploymentProgressing)
	}
	cur := GetCondition(&st, apps.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == apps.NewRSAvailableReason
	if hasDeadline && !complete && newRS != nil {
		r.setProgressing(d, &st, newRS.Name, now)
	}
	if err := r.writeStatus(ctx, d, st); err != nil {
		return controller.Result{}, err
	}
	return requeueStuck(d, &st, now), nil
}

func (r *Controller) setProgressing(d *apps.Deployment, st *apps.DeploymentStatus, rsName string, now time.Time) {
	cur := GetCondition(st, apps.DeploymentProgressing)
	switch {
	case DeploymentComplete(d, st):
		SetCondition(st, NewCondition(apps.DeploymentProgressing, meta.ConditionTrue, apps.NewRSAvailableReason,
			fmt.Sprintf("ReplicaSet %q has successfully progressed.", rsName), now))
	case DeploymentProgressing(d, st):
		c := NewCondition(apps.DeploymentProgressing, meta.ConditionTrue, apps.ReplicaSetUpdatedReason,
			fmt.Sprintf("ReplicaSet %q is progressing.", rsName), now)
		if cur != nil && cur.Status == meta.ConditionTrue {
			c.LastTransitionTime = cur.LastTransitionTime
		}
		RemoveCondition(st, apps.DeploymentProgressing) // so that lastUpdateTime moves on
		SetCondition(st, c)
	case DeploymentTimedOut(d, st, now):
		SetCondition(st, NewCondition(apps.DeploymentProgressing, meta.ConditionFalse, apps.TimedOutReason,
			fmt.Sprintf("ReplicaSet %q has timed out progressing.", rsName), now))
	case cur == nil:
		SetCondition(st, NewCondition(apps.DeploymentProgressing, meta.ConditionTrue, apps.FoundNewReplicaSetReason,
			fmt.Sprintf("Found new replica set %q", rsName), now))
	}
}

// requeueStuck returns when to look at a progressing Deployment again to
// notice its deadline passing.
func requeueStuck(d *apps.Deployment, st *apps.DeploymentStatus, now time.Time) controller.Result {
	c := GetCondition(st, apps.DeploymentProgressing)
	if c == nil || d.Spec.ProgressDeadlineSeconds == nil || c.Reason == apps.NewRSAvailableReason ||
		c.Reason == apps.TimedOutReason || DeploymentComplete(d, st) {
		return controller.Result{}
	}
	after := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(now)
	if after < time.Second {
		after = time.Second
	}
	return controller.Result{RequeueAfter: after}
}

// writeStatus writes st unless d already has it.
func (r *Controller) writeStatus(ctx context.Context, d *apps.Deployment, st apps.DeploymentStatus) error {
	if statusEqual(&d.Status, &st) {
		return nil
	}
	upd := meta.DeepCopy(d)
	upd.Status = st
	out, err := client.For[apps.Deployment](r.client, d.Namespace).UpdateStatus(ctx, upd)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("update status of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.Status, d.ResourceVersion = out.Status, out.ResourceVersion
	return nil
}

func statusEqual(a, b *apps.DeploymentStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Replicas != b.Replicas || a.UpdatedReplicas != b.UpdatedReplicas ||
		a.ReadyReplicas != b.ReadyReplicas || a.AvailableReplicas != b.AvailableReplicas ||
		a.UnavailableReplicas != b.UnavailableReplicas || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			!x.LastUpdateTime.Equal(y.LastUpdateTime.Time) {
			return false
		}
	}
	return true
}
