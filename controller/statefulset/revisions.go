package statefulset

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// revisionData is what a set's ControllerRevision holds: its pod template
// in the shape of a patch of the set ({"spec":{"template":...}}), as
// Kubernetes stores it, so `kubectl rollout history` can show it.
type revisionData struct {
	Spec struct {
		Template core.PodTemplateSpec `json:"template"`
	} `json:"spec"`
}

// safeAlphabet has no vowels (no words) and no look-alike characters.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// TemplateHash returns the hash that names the revision of a pod template
// (the controller-revision-hash label's value), salted with the set's
// collision count.
func TemplateHash(t *core.PodTemplateSpec, collisionCount int32) string {
	b, _ := json.Marshal(t) // a PodTemplateSpec always encodes
	h := fnv.New32a()
	h.Write(b)
	if collisionCount != 0 {
		fmt.Fprintf(h, "/%d", collisionCount)
	}
	v := h.Sum32()
	out := make([]byte, 0, 8)
	for v > 0 || len(out) == 0 {
		out = append(out, safeAlphabet[v%uint32(len(safeAlphabet))])
		v /= uint32(len(safeAlphabet))
	}
	return string(out)
}

// templateOf decodes the pod template a revision holds.
func templateOf(rev *apps.ControllerRevision) (*core.PodTemplateSpec, error) {
	var d revisionData
	if err := json.Unmarshal(rev.Data, &d); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadRevision, rev.Name, err)
	}
	return &d.Spec.Template, nil
}

// ownedRevisions returns the set's revisions, oldest first.
func (c *Controller) ownedRevisions(set *apps.StatefulSet) []*apps.ControllerRevision {
	var out []*apps.ControllerRevision
	for _, r := range c.revisions.Namespace(set.Namespace).List(nil) {
		if ref := meta.ControllerOf(&r.ObjectMeta); ref != nil && ref.UID == set.UID {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *apps.ControllerRevision) int { return int(a.Revision - b.Revision) })
	return out
}

// syncRevisions returns the set's current and update revisions, creating
// the update revision when the template is new.
func (c *Controller) syncRevisions(ctx context.Context, set *apps.StatefulSet, revs []*apps.ControllerRevision) (current, update *apps.ControllerRevision, err error) {
	var collisions int32
	if set.Status.CollisionCount != nil {
		collisions = *set.Status.CollisionCount
	}
	name := set.Name + "-" + TemplateHash(&set.Spec.Template, collisions)
	var maxRev int64
	for _, r := range revs {
		maxRev = max(maxRev, r.Revision)
		if r.Name == name {
			update = r
		}
		if r.Name == set.Status.CurrentRevision {
			current = r
		}
	}
	if update == nil {
		if update, err = c.createRevision(ctx, set, name, maxRev+1); err != nil {
			return nil, nil, err
		}
	}
	if current == nil {
		current = update
	}
	return current, update, nil
}

func (c *Controller) createRevision(ctx context.Context, set *apps.StatefulSet, name string, revision int64) (*apps.ControllerRevision, error) {
	var d revisionData
	d.Spec.Template = set.Spec.Template
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{apps.ControllerRevisionHashLabelKey: name[len(set.Name)+1:]}
	for k, v := range set.Spec.Template.Labels {
		labels[k] = v
	}
	rev := &apps.ControllerRevision{
		ObjectMeta: meta.ObjectMeta{Name: name, Namespace: set.Namespace, Labels: labels,
			OwnerReferences: []meta.OwnerReference{controllerRef(set)}},
		Data: data, Revision: revision,
	}
	res := client.For[apps.ControllerRevision](c.client, set.Namespace)
	out, err := res.Create(ctx, rev)
	if apierrors.IsAlreadyExists(err) {
		if out, err = res.Get(ctx, name); err == nil && !isControlledBy(&out.ObjectMeta, set.UID) {
			return nil, fmt.Errorf("revision %s/%s belongs to another owner", set.Namespace, name)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("create revision %s/%s: %w", set.Namespace, name, err)
	}
	return out, nil
}

// trimHistory deletes the oldest revisions beyond revisionHistoryLimit
// that are neither current, update, nor the revision of a pod.
func (c *Controller) trimHistory(ctx context.Context, set *apps.StatefulSet, revs []*apps.ControllerRevision, live map[string]bool) error {
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	var old []*apps.ControllerRevision
	for _, r := range revs {
		if !live[r.Name] {
			old = append(old, r)
		}
	}
	res := client.For[apps.ControllerRevision](c.client, set.Namespace)
	for i := 0; i < len(old)-limit; i++ {
		if err := res.Delete(ctx, old[i].Name, nil); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete revision %s/%s: %w", set.Namespace, old[i].Name, err)
		}
	}
	return nil
}

func controllerRef(set *apps.StatefulSet) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: set.Name, UID: set.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

func isControlledBy(m *meta.ObjectMeta, uid meta.UID) bool {
	ref := meta.ControllerOf(m)
	return ref != nil && ref.UID == uid
}
