package statefulset

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
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
			if err := controller.SetOwners(ctx, c.client, p, controller.WithoutOwner(p.OwnerReferences, set.UID)); err != nil {
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
		if err := controller.SetOwners(ctx, c.client, p, refs); err != nil {
			return nil, err
		}
		c.log.Info("adopted pod", "set", set.Namespace+"/"+set.Name, "pod", p.Name)
		ord, _ := ParseOrdinal(set, p.Name)
		out[ord] = p
	}
	return out, nil
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
