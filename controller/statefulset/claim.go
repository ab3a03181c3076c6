package statefulset

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
)

// claimPods returns the set's pods by ordinal, after adopting orphans
// that the selector matches and that carry one of the set's pod names,
// and releasing pods it controls that the selector no longer matches.
// A set being deleted adopts nothing (checked live: the cache may lag).
func (c *Controller) claimPods(ctx context.Context, set *apps.StatefulSet, sel labels.Selector) (map[int]*core.Pod, error) {
	out := map[int]*core.Pod{}
	var adopt []*core.Pod
	for _, p := range c.pods.Namespace(set.Namespace).List(nil) {
		ref := meta.ControllerOf(&p.ObjectMeta)
		match := sel.Matches(labels.Set(p.Labels))
		ord, named := ParseOrdinal(set, p.Name)
		switch {
		case ref != nil && ref.UID == set.UID && !match:
			if err := c.setPodOwners(ctx, p, withoutOwner(p.OwnerReferences, set.UID)); err != nil {
				return nil, err
			}
		case ref != nil && ref.UID == set.UID && named:
			out[ord] = p
		case ref == nil && match && named && p.DeletionTimestamp == nil:
			adopt = append(adopt, p)
		}
	}
	if len(adopt) == 0 {
		return out, nil
	}
	fresh, err := client.For[apps.StatefulSet](c.client, set.Namespace).Get(ctx, set.Name)
	if err != nil {
		return nil, fmt.Errorf("recheck statefulset %s/%s before adopting: %w", set.Namespace, set.Name, err)
	}
	if fresh.UID != set.UID || fresh.DeletionTimestamp != nil {
		return out, nil
	}
	for _, p := range adopt {
		refs := append(append([]meta.OwnerReference(nil), p.OwnerReferences...), controllerRef(set))
		if err := c.setPodOwners(ctx, p, refs); err != nil {
			return nil, err
		}
		c.log.Info("adopted pod", "set", set.Namespace+"/"+set.Name, "pod", p.Name)
		ord, _ := ParseOrdinal(set, p.Name)
		out[ord] = p
	}
	return out, nil
}

func withoutOwner(refs []meta.OwnerReference, uid meta.UID) []meta.OwnerReference {
	out := []meta.OwnerReference{}
	for _, r := range refs {
		if r.UID != uid {
			out = append(out, r)
		}
	}
	return out
}

// setPodOwners replaces pod's ownerReferences, conditional on the
// version the cache has (a conflict fails the reconcile, which retries
// on fresh state). A pod that is gone is not an error.
func (c *Controller) setPodOwners(ctx context.Context, pod *core.Pod, refs []meta.OwnerReference) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": pod.ResourceVersion, "ownerReferences": refs}})
	if err != nil {
		return err
	}
	_, err = client.For[core.Pod](c.client, pod.Namespace).Patch(ctx, pod.Name, client.MergePatchType, patch)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("set owners of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// orphanRequests maps a pod without a controller to the sets of its
// namespace that select it, so that they adopt it.
func (c *Controller) orphanRequests(p *core.Pod) []controller.Request {
	if meta.ControllerOf(&p.ObjectMeta) != nil || p.DeletionTimestamp != nil {
		return nil
	}
	var out []controller.Request
	for _, set := range c.sets.Namespace(p.Namespace).List(nil) {
		sel, err := labels.SelectorFromLabelSelector(set.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if _, ok := ParseOrdinal(set, p.Name); ok {
			out = append(out, controller.Request{Namespace: set.Namespace, Name: set.Name})
		}
	}
	return out
}
