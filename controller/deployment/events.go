package deployment

import (
	"context"
	"fmt"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
)

// Component is the source of the controller's Events.
const Component = "deployment-controller"

// newRecorder returns opts.Recorder, or a record.Writer of the
// controller's own over the manager's client, which the manager runs (and
// flushes when it stops).
func newRecorder(m *controller.Manager, opts Options) (record.Recorder, error) {
	if opts.Recorder != nil {
		return opts.Recorder, nil
	}
	w, err := record.New(m.Client(), record.Options{Source: core.EventSource{Component: Component}, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	return w, m.Add(w)
}

// recordScaling records a ScalingReplicaSet Event on d, as Kubernetes'
// deployment controller does (kubectl describe shows them). It never
// blocks nor fails: the recorder drops what it cannot write.
func (r *Reconciler) recordScaling(_ context.Context, d *apps.Deployment, rs *apps.ReplicaSet, from, to int32) {
	dir := "up"
	if to < from {
		dir = "down"
	}
	r.rec.Event(d, core.EventTypeNormal, "ScalingReplicaSet", fmt.Sprintf("Scaled %s replica set %s from %d to %d", dir, rs.Name, from, to))
}
