package deployment

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
)

// Component is the source of the controller's Events.
const Component = "deployment-controller"

// recordScaling records a ScalingReplicaSet Event on d, as Kubernetes'
// deployment controller does (kubectl describe shows them). It never
// blocks nor fails: the recorder drops what it cannot write.
func (r *Controller) recordScaling(_ context.Context, d *apps.Deployment, rs *apps.ReplicaSet, from, to int32) {
	dir := "up"
	if to < from {
		dir = "down"
	}
	r.rec.Event(d, core.EventTypeNormal, "ScalingReplicaSet", fmt.Sprintf("Scaled %s replica set %s from %d to %d", dir, rs.Name, from, to))
}
