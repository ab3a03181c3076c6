package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"

	"github.com/orkit/orkit/api/apps"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// getNewReplicaSet returns d's new ReplicaSet (nil when it has none and
// create is false) and the old ones. An existing new ReplicaSet gets the
// next revision and d's annotations; a created one gets its name and
// selector from the template's hash. d's revision annotation follows.
func (r *Controller) getNewReplicaSet(ctx context.Context, d *apps.Deployment, rsList []*apps.ReplicaSet, create bool) (*apps.ReplicaSet, []*apps.ReplicaSet, error) {
	newRS, old := findNewReplicaSet(d, rsList)
	rev := MaxRevision(old)
	if rev < math.MaxInt64 { // a hand-written huge revision saturates
		rev++
	}
	var err error
	switch {
	case newRS != nil:
		err = r.syncExistingNewRS(ctx, d, newRS, rev)
	case create:
		newRS, err = r.createNewRS(ctx, d, old, rev)
	}
	if err != nil || newRS == nil {
		return newRS, old, err
	}
	return newRS, old, r.setDeploymentRevision(ctx, d, newRS.Annotations[apps.RevisionAnnotation])
}

func (r *Controller) syncExistingNewRS(ctx context.Context, d *apps.Deployment, rs *apps.ReplicaSet, rev int64) error {
	changed := setNewRSAnnotations(d, rs, rev)
	if rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		rs.Spec.MinReadySeconds, changed = d.Spec.MinReadySeconds, true
	}
	if !changed {
		return nil
	}
	out, err := client.For[apps.ReplicaSet](r.client, rs.Namespace).Update(ctx, rs)
	if err != nil {
		return fmt.Errorf("update new replicaset %s/%s: %w", rs.Namespace, rs.Name, err)
	}
	*rs = *out
	return nil
}

// NewReplicaSet returns the ReplicaSet that runs d's template, named and
// labelled with the template's hash, with no replicas yet.
func NewReplicaSet(d *apps.Deployment) *apps.ReplicaSet {
	tmpl := meta.DeepCopy(&d.Spec.Template)
	hash := ComputeHash(tmpl, d.Status.CollisionCount)
	tmpl.Labels = maps.Clone(tmpl.Labels)
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	tmpl.Labels[apps.DefaultDeploymentUniqueLabelKey] = hash
	sel := meta.DeepCopy(d.Spec.Selector)
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[apps.DefaultDeploymentUniqueLabelKey] = hash
	zero := int32(0)
	return &apps.ReplicaSet{
		ObjectMeta: meta.ObjectMeta{Name: d.Name + "-" + hash, Namespace: d.Namespace, Labels: tmpl.Labels,
			OwnerReferences: []meta.OwnerReference{OwnerReference(d)}},
		Spec: apps.ReplicaSetSpec{Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: sel, Template: *tmpl},
	}
}

func (r *Controller) createNewRS(ctx context.Context, d *apps.Deployment, old []*apps.ReplicaSet, rev int64) (*apps.ReplicaSet, error) {
	rs := NewReplicaSet(d)
	n := NewRSNewReplicas(d, append(old[:len(old):len(old)], rs), rs)
	rs.Spec.Replicas = &n
	setNewRSAnnotations(d, rs, rev)
	setReplicasAnnotations(rs, replicasOf(d.Spec.Replicas), replicasOf(d.Spec.Replicas)+MaxSurge(d))
	rsc := client.For[apps.ReplicaSet](r.client, d.Namespace)
	out, err := rsc.Create(ctx, rs)
	if apierrors.IsAlreadyExists(err) {
		existing, gerr := rsc.Get(ctx, rs.Name)
		if gerr != nil {
			return nil, gerr
		}
		if ref := meta.ControllerOf(&existing.ObjectMeta); ref != nil && ref.UID == d.UID &&
			EqualIgnoreHash(&existing.Spec.Template, &d.Spec.Template) {
			return existing, nil // our cache was behind
		}
		return nil, r.bumpCollisionCount(ctx, d)
	}
	if err != nil {
		return nil, fmt.Errorf("create replicaset for deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	if n > 0 {
		r.recordScaling(ctx, d, out, 0, n)
	}
	st := d.Status
	SetCondition(&st, NewCondition(apps.DeploymentProgressing, meta.ConditionTrue, apps.NewReplicaSetReason,
		fmt.Sprintf("Created new replica set %q", out.Name), r.now()))
	d.Status = st
	return out, nil
}

func (r *Controller) bumpCollisionCount(ctx context.Context, d *apps.Deployment) error {
	var c int32
	if d.Status.CollisionCount != nil {
		c = *d.Status.CollisionCount
	}
	c++
	upd := meta.DeepCopy(d)
	upd.Status.CollisionCount = &c
	if _, err := client.For[apps.Deployment](r.client, d.Namespace).UpdateStatus(ctx, upd); err != nil {
		return fmt.Errorf("raise collisionCount of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return fmt.Errorf("%w: deployment %s/%s, collisionCount now %d", ErrHashCollision, d.Namespace, d.Name, c)
}

// setDeploymentRevision gives d the revision annotation of its new
// ReplicaSet.
func (r *Controller) setDeploymentRevision(ctx context.Context, d *apps.Deployment, rev string) error {
	if rev == "" || d.Annotations[apps.RevisionAnnotation] == rev {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{apps.RevisionAnnotation: rev}}})
	out, err := client.For[apps.Deployment](r.client, d.Namespace).Patch(ctx, d.Name, client.MergePatchType, patch)
	if err != nil {
		return fmt.Errorf("set revision of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	d.Annotations, d.ResourceVersion = out.Annotations, out.ResourceVersion
	return nil
}
