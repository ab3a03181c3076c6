package deployment

import (
	"context"
	"fmt"
	"github.com/orkit/orkit/controller"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/apps"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// OwnerReference returns the controller reference a Deployment puts on
// its ReplicaSets.
func OwnerReference(d *apps.Deployment) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// claimReplicaSets returns the ReplicaSets d controls after adopting the
// orphans its selector matches and releasing those it no longer does
// (controller.ClaimObjects; d, a copy, is not being deleted). The objects
// are copies the caller may change, oldest first.
func (r *Controller) claimReplicaSets(ctx context.Context, d *apps.Deployment, sel labels.Selector) ([]*apps.ReplicaSet, error) {
	rss, err := controller.ClaimObjects(ctx, r.client, controller.Claim[*apps.ReplicaSet]{Owner: d, Ref: OwnerReference(d), Selector: sel},
		r.rss.Namespace(d.Namespace).List(nil))
	if err != nil {
		return nil, err
	}
	out := make([]*apps.ReplicaSet, len(rss))
	for i, rs := range rss {
		out[i] = meta.DeepCopy(rs)
	}
	slices.SortFunc(out, byCreation)
	return out, nil
}

// findNewReplicaSet returns the ReplicaSet running d's template (the
// oldest when several do) and the others.
func findNewReplicaSet(d *apps.Deployment, rsList []*apps.ReplicaSet) (*apps.ReplicaSet, []*apps.ReplicaSet) {
	var newRS *apps.ReplicaSet
	var old []*apps.ReplicaSet
	for _, rs := range rsList { // oldest first
		if newRS == nil && EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			continue
		}
		old = append(old, rs)
	}
	return newRS, old
}

// skipAnnotations are the Deployment annotations not copied to its
// ReplicaSets.
func skipAnnotation(k string) bool {
	switch k {
	case "kubectl.kubernetes.io/last-applied-configuration", apps.RevisionAnnotation, apps.RevisionHistoryAnnotation,
		apps.DesiredReplicasAnnotation, apps.MaxReplicasAnnotation, apps.DeprecatedRollbackTo:
		return true
	}
	return false
}

// setNewRSAnnotations copies d's annotations to rs and gives it revision
// rev, remembering a reused ReplicaSet's earlier revisions in the
// revision-history annotation. It reports whether anything changed.
func setNewRSAnnotations(d *apps.Deployment, rs *apps.ReplicaSet, rev int64) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	before := maps.Clone(rs.Annotations)
	for k, v := range d.Annotations {
		if !skipAnnotation(k) {
			rs.Annotations[k] = v
		}
	}
	old := Revision(&rs.ObjectMeta)
	if old < rev {
		if old > 0 {
			hist := rs.Annotations[apps.RevisionHistoryAnnotation]
			var parts []string
			if hist != "" {
				parts = strings.Split(hist, ",")
			}
			rs.Annotations[apps.RevisionHistoryAnnotation] = strings.Join(append(parts, strconv.FormatInt(old, 10)), ",")
		}
		rs.Annotations[apps.RevisionAnnotation] = strconv.FormatInt(rev, 10)
	}
	return !maps.Equal(before, rs.Annotations)
}

// setReplicasAnnotations records the Deployment size an RS was last
// scaled for (proportional scaling reads them). It reports a change.
func setReplicasAnnotations(rs *apps.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	d, m := strconv.Itoa(int(desired)), strconv.Itoa(int(maxReplicas))
	if rs.Annotations[apps.DesiredReplicasAnnotation] == d && rs.Annotations[apps.MaxReplicasAnnotation] == m {
		return false
	}
	rs.Annotations[apps.DesiredReplicasAnnotation], rs.Annotations[apps.MaxReplicasAnnotation] = d, m
	return true
}

// scaleReplicaSet sets rs's replicas (and its replicas annotations) and
// writes it when anything changed; rs is updated in place with the
// stored object. It reports whether the replicas changed.
func (r *Controller) scaleReplicaSet(ctx context.Context, rs *apps.ReplicaSet, n int32, d *apps.Deployment) (bool, error) {
	sizeChanged := rsReplicas(rs) != n
	annChanged := setReplicasAnnotations(rs, replicasOf(d.Spec.Replicas), replicasOf(d.Spec.Replicas)+MaxSurge(d))
	if !sizeChanged && !annChanged {
		return false, nil
	}
	from := rsReplicas(rs)
	rs.Spec.Replicas = &n
	out, err := client.For[apps.ReplicaSet](r.client, rs.Namespace).Update(ctx, rs)
	if err != nil {
		return false, fmt.Errorf("scale replicaset %s/%s to %d: %w", rs.Namespace, rs.Name, n, err)
	}
	*rs = *out
	if sizeChanged {
		r.recordScaling(ctx, d, rs, from, n)
	}
	return sizeChanged, nil
}

// cleanup deletes the oldest of d's scaled-down ReplicaSets beyond
// revisionHistoryLimit.
func (r *Controller) cleanup(ctx context.Context, d *apps.Deployment, old []*apps.ReplicaSet) error {
	if d.Spec.RevisionHistoryLimit == nil {
		return nil
	}
	var dead []*apps.ReplicaSet
	for _, rs := range old {
		if rsReplicas(rs) == 0 && rs.Status.Replicas == 0 && rs.DeletionTimestamp == nil {
			dead = append(dead, rs)
		}
	}
	n := len(dead) - int(*d.Spec.RevisionHistoryLimit)
	if n <= 0 {
		return nil
	}
	slices.SortFunc(dead, func(a, b *apps.ReplicaSet) int {
		if x, y := Revision(&a.ObjectMeta), Revision(&b.ObjectMeta); x != y {
			return int(x - y)
		}
		return byCreation(a, b)
	})
	for _, rs := range dead[:n] {
		err := client.For[apps.ReplicaSet](r.client, rs.Namespace).Delete(ctx, rs.Name, nil)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete old replicaset %s/%s: %w", rs.Namespace, rs.Name, err)
		}
	}
	return nil
}
