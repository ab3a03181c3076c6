package replicaset

import (
	"context"
	"fmt"
	"sync"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
)

// OwnerReference returns the controller reference a ReplicaSet puts on
// its pods.
func OwnerReference(rs *apps.ReplicaSet) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// ownerKey is the owner of the kind that controls pod, for the
// expectations.
func (r *Controller) ownerKey(pod *core.Pod) (controller.Request, bool) {
	ref := meta.ControllerOf(&pod.ObjectMeta)
	if !r.kind.owns(ref) {
		return controller.Request{}, false
	}
	return controller.Request{Namespace: pod.Namespace, Name: ref.Name}, true
}

// claimPods returns owner's active pods: those it controls and its
// selector matches, after adopting matching orphans and releasing
// non-matching pods it controls (controller.ClaimObjects).
func (r *Controller) claimPods(ctx context.Context, owner meta.Object, sel labels.Selector) ([]*core.Pod, error) {
	m := owner.GetObjectMeta()
	candidates, err := controller.ClaimCandidates(r.podIndex, owner)
	if err != nil {
		return nil, err
	}
	owned, err := controller.ClaimObjects(ctx, r.client, controller.Claim[*core.Pod]{Owner: owner, Ref: r.kind.ref(owner), Selector: sel,
		Recheck: func(ctx context.Context) (meta.Object, error) {
			return r.kind.fetch(ctx, m.Namespace, m.Name)
		}}, candidates)
	if err != nil {
		return nil, err
	}
	active := owned[:0:0]
	for _, p := range owned {
		if IsActive(p) {
			active = append(active, p)
		}
	}
	return active, nil
}

// manage creates or deletes pods so that owner (seen as rs) has
// spec.replicas of them.
func (r *Controller) manage(ctx context.Context, key controller.Request, owner meta.Object, rs *apps.ReplicaSet, pods []*core.Pod) error {
	want := 1
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	diff := len(pods) - want
	switch {
	case diff < 0:
		return r.createPods(ctx, key, owner, rs, min(-diff, r.burst))
	case diff > 0:
		return r.deletePods(ctx, key, owner, PodsToDelete(pods, min(diff, r.burst)))
	}
	return nil
}

// NewPod returns the pod rs creates from its template.
func NewPod(rs *apps.ReplicaSet) *core.Pod { return newPod(rs, OwnerReference(rs)) }

// newPod returns the pod made from rs's template, controlled by ref.
func newPod(rs *apps.ReplicaSet, ref meta.OwnerReference) *core.Pod {
	t := meta.DeepCopy(&rs.Spec.Template)
	return &core.Pod{
		ObjectMeta: meta.ObjectMeta{GenerateName: rs.Name + "-", Namespace: rs.Namespace, Labels: t.Labels,
			Annotations: t.Annotations, Finalizers: t.Finalizers, OwnerReferences: []meta.OwnerReference{ref}},
		Spec: t.Spec,
	}
}

// createPods creates n pods in slow-start batches; the first failing
// batch stops the rest, whose expectations are released.
func (r *Controller) createPods(ctx context.Context, key controller.Request, owner meta.Object, rs *apps.ReplicaSet, n int) error {
	r.exp.ExpectCreations(key, n)
	pods := client.For[core.Pod](r.client, rs.Namespace)
	done := 0
	for _, size := range SlowStartBatches(n, r.burst) {
		var wg sync.WaitGroup
		errs := make([]error, size)
		for i := range size {
			wg.Add(1)
			go func() {
				defer wg.Done()
				created, err := pods.Create(ctx, newPod(rs, r.kind.ref(owner)))
				if err != nil {
					r.exp.CreationObserved(key) // no event will come
					errs[i] = err
					return
				}
				r.recordCreated(owner, created)
			}()
		}
		wg.Wait()
		done += size
		for _, err := range errs {
			if err != nil {
				for range n - done {
					r.exp.CreationObserved(key)
				}
				r.recordFailedCreate(owner, err)
				return fmt.Errorf("create pods for %s %s: %w", r.kind.name, key, err)
			}
		}
	}
	return nil
}

// deletePods deletes victims at once, waiting for each deletion's event.
func (r *Controller) deletePods(ctx context.Context, key controller.Request, owner meta.Object, victims []*core.Pod) error {
	uids := make([]meta.UID, len(victims))
	for i, p := range victims {
		uids[i] = p.UID
	}
	r.exp.ExpectDeletionsOf(key, uids)
	var wg sync.WaitGroup
	errs := make([]error, len(victims))
	for i, p := range victims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := client.For[core.Pod](r.client, p.Namespace).Delete(ctx, p.Name, nil)
			if err != nil {
				r.exp.DeletionObservedOf(key, p.UID) // no event will come
				if !apierrors.IsNotFound(err) {
					errs[i] = fmt.Errorf("delete pod %s/%s: %w", p.Namespace, p.Name, err)
					r.recordDeleted(owner, p, err)
				}
				return
			}
			r.recordDeleted(owner, p, nil)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
