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

func controllerRef(pod *core.Pod) *meta.OwnerReference {
	ref := meta.ControllerOf(&pod.ObjectMeta)
	if ref == nil || meta.ParseGroupVersion(ref.APIVersion).Group != apps.GroupName {
		return nil
	}
	return ref
}

// OwnerReference returns the controller reference a ReplicaSet puts on
// its pods.
func OwnerReference(rs *apps.ReplicaSet) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// ownerKey is the ReplicaSet that controls pod, for the expectations.
func ownerKey(pod *core.Pod) (controller.Request, bool) {
	ref := controllerRef(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return controller.Request{}, false
	}
	return controller.Request{Namespace: pod.Namespace, Name: ref.Name}, true
}

// claimPods returns rs's active pods: those it controls and its selector
// matches, after adopting matching orphans and releasing non-matching
// pods it controls (controller.ClaimObjects).
func (r *Controller) claimPods(ctx context.Context, rs *apps.ReplicaSet, sel labels.Selector) ([]*core.Pod, error) {
	owned, err := controller.ClaimObjects(ctx, r.client, controller.Claim[*core.Pod]{Owner: rs, Ref: OwnerReference(rs), Selector: sel,
		Recheck: func(ctx context.Context) (meta.Object, error) {
			return client.For[apps.ReplicaSet](r.client, rs.Namespace).Get(ctx, rs.Name)
		}}, r.pods.Namespace(rs.Namespace).List(nil))
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

// manage creates or deletes pods so that rs has spec.replicas of them.
func (r *Controller) manage(ctx context.Context, key controller.Request, rs *apps.ReplicaSet, pods []*core.Pod) error {
	want := 1
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	diff := len(pods) - want
	switch {
	case diff < 0:
		return r.createPods(ctx, key, rs, min(-diff, r.burst))
	case diff > 0:
		return r.deletePods(ctx, key, rs, PodsToDelete(pods, min(diff, r.burst)))
	}
	return nil
}

// NewPod returns the pod rs creates from its template.
func NewPod(rs *apps.ReplicaSet) *core.Pod {
	t := meta.DeepCopy(&rs.Spec.Template)
	return &core.Pod{
		ObjectMeta: meta.ObjectMeta{GenerateName: rs.Name + "-", Namespace: rs.Namespace, Labels: t.Labels,
			Annotations: t.Annotations, Finalizers: t.Finalizers, OwnerReferences: []meta.OwnerReference{OwnerReference(rs)}},
		Spec: t.Spec,
	}
}

// createPods creates n pods in slow-start batches; the first failing
// batch stops the rest, whose expectations are released.
func (r *Controller) createPods(ctx context.Context, key controller.Request, rs *apps.ReplicaSet, n int) error {
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
				created, err := pods.Create(ctx, NewPod(rs))
				if err != nil {
					r.exp.CreationObserved(key) // no event will come
					errs[i] = err
					return
				}
				r.recordCreated(rs, created)
			}()
		}
		wg.Wait()
		done += size
		for _, err := range errs {
			if err != nil {
				for range n - done {
					r.exp.CreationObserved(key)
				}
				r.recordFailedCreate(rs, err)
				return fmt.Errorf("create pods for replicaset %s: %w", key, err)
			}
		}
	}
	return nil
}

// deletePods deletes victims at once, waiting for each deletion's event.
func (r *Controller) deletePods(ctx context.Context, key controller.Request, rs *apps.ReplicaSet, victims []*core.Pod) error {
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
					r.recordDeleted(rs, p, err)
				}
				return
			}
			r.recordDeleted(rs, p, nil)
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
