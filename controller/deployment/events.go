package deployment

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// recordScaling records a ScalingReplicaSet event on d, as Kubernetes'
// deployment controller does (kubectl describe shows them). Best effort:
// a failure is logged, never returned.
func (r *Reconciler) recordScaling(ctx context.Context, d *apps.Deployment, rs *apps.ReplicaSet, from, to int32) {
	dir := "up"
	if to < from {
		dir = "down"
	}
	t := r.now()
	now := meta.NewTime(t)
	ev := &core.Event{
		ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("%s.%x", d.Name, t.UnixNano()), Namespace: d.Namespace},
		InvolvedObject: core.ObjectReference{Kind: "Deployment", APIVersion: "apps/v1", Namespace: d.Namespace, Name: d.Name,
			UID: d.UID, ResourceVersion: d.ResourceVersion},
		Reason:  "ScalingReplicaSet",
		Message: fmt.Sprintf("Scaled %s replica set %s from %d to %d", dir, rs.Name, from, to),
		Source:  core.EventSource{Component: "deployment-controller"}, Type: core.EventTypeNormal,
		FirstTimestamp: now, LastTimestamp: now, Count: 1, ReportingController: "deployment-controller",
	}
	if _, err := client.For[core.Event](r.client, d.Namespace).Create(ctx, ev); err != nil && ctx.Err() == nil {
		r.log.Debug("event not recorded", "deployment", d.Namespace+"/"+d.Name, "err", err)
	}
}
