package daemonset

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

// claimPods adopts orphan pods the DaemonSet's selector matches and
// releases pods it controls that the selector no longer matches, and
// returns the pods it adopted (the cache does not show them as owned
// yet). A DaemonSet being deleted adopts nothing (checked live: the
// cache may lag).
func (c *Controller) claimPods(ctx context.Context, ds *apps.DaemonSet, sel labels.Selector) ([]*core.Pod, error) {
	var adopt []*core.Pod
	for _, p := range c.pods.Namespace(ds.Namespace).List(nil) {
		ref := meta.ControllerOf(&p.ObjectMeta)
		match := sel.Matches(labels.Set(p.Labels))
		switch {
		case ref != nil && ref.UID == ds.UID && !match:
			if err := controller.SetOwners(ctx, c.client, p, controller.WithoutOwner(p.OwnerReferences, ds.UID)); err != nil {
				return nil, err
			}
		case ref == nil && match && p.DeletionTimestamp == nil:
			adopt = append(adopt, p)
		}
	}
	if len(adopt) == 0 {
		return nil, nil
	}
	fresh, err := client.For[apps.DaemonSet](c.client, ds.Namespace).Get(ctx, ds.Name)
	if err != nil {
		return nil, fmt.Errorf("recheck daemonset %s/%s before adopting: %w", ds.Namespace, ds.Name, err)
	}
	if fresh.UID != ds.UID || fresh.DeletionTimestamp != nil {
		return nil, nil
	}
	for _, p := range adopt {
		refs := append(append([]meta.OwnerReference(nil), p.OwnerReferences...), ownerRef(ds))
		if err := controller.SetOwners(ctx, c.client, p, refs); err != nil {
			return nil, err
		}
		c.log.Info("adopted pod", "daemonset", ds.Namespace+"/"+ds.Name, "pod", p.Name)
	}
	return adopt, nil
}

func ownerRef(ds *apps.DaemonSet) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

// orphanRequests maps a pod without a controller to the DaemonSets of its
// namespace that select it, so that they adopt it.
func (c *Controller) orphanRequests(p *core.Pod) []controller.Request {
	if meta.ControllerOf(&p.ObjectMeta) != nil || p.DeletionTimestamp != nil {
		return nil
	}
	var out []controller.Request
	for _, ds := range c.sets.Namespace(p.Namespace).List(nil) {
		sel, err := labels.SelectorFromLabelSelector(ds.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, controller.Request{Namespace: ds.Namespace, Name: ds.Name})
		}
	}
	return out
}
