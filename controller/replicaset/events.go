package replicaset

import (
	"context"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// recordFailedCreate records a FailedCreate warning event on rs, as
// Kubernetes' ReplicaSet controller does (kubectl describe shows it).
// Best effort: a failure is logged, never returned.
func (r *Reconciler) recordFailedCreate(ctx context.Context, rs *apps.ReplicaSet, cause error) {
	t := time.Now()
	now := meta.NewTime(t)
	ev := &core.Event{
		ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("%s.%x", rs.Name, t.UnixNano()), Namespace: rs.Namespace},
		InvolvedObject: core.ObjectReference{Kind: "ReplicaSet", APIVersion: "apps/v1", Namespace: rs.Namespace, Name: rs.Name,
			UID: rs.UID, ResourceVersion: rs.ResourceVersion},
		Reason: "FailedCreate", Message: "Error creating: " + cause.Error(), Type: core.EventTypeWarning,
		Source: core.EventSource{Component: "replicaset-controller"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: "replicaset-controller",
	}
	if _, err := client.For[core.Event](r.client, rs.Namespace).Create(ctx, ev); err != nil && ctx.Err() == nil {
		r.log.Debug("event not recorded", "replicaset", rs.Namespace+"/"+rs.Name, "err", err)
	}
}
