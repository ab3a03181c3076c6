package daemonset

import (
	"context"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
)

// claimPods returns the DaemonSet's pods (controller.ClaimObjects): those
// it controls that its selector matches, after adopting the orphans it
// matches and releasing the pods it controls that it no longer matches.
func (c *Controller) claimPods(ctx context.Context, ds *apps.DaemonSet, sel labels.Selector) ([]*core.Pod, error) {
	candidates, err := controller.ClaimCandidates(c.podIndex, ds)
	if err != nil {
		return nil, err
	}
	return controller.ClaimObjects(ctx, c.client, controller.Claim[*core.Pod]{Owner: ds, Ref: ownerRef(ds), Selector: sel,
		Recheck: func(ctx context.Context) (meta.Object, error) {
			return client.For[apps.DaemonSet](c.client, ds.Namespace).Get(ctx, ds.Name)
		}}, candidates)
}

func ownerRef(ds *apps.DaemonSet) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}
