package replicaset

import (
	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
)

// Component is the source of the controller's Events.
const Component = "replicaset-controller"

// The reasons of the controller's Events, as Kubernetes' pod control
// spells them.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
)

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

// event records an Event on rs (kubectl describe shows them). It never
// blocks nor fails: the recorder drops what it cannot write. A Reconciler
// made without a recorder records nothing.
func (r *Reconciler) event(rs *apps.ReplicaSet, eventType, reason, message string) {
	if r.rec != nil {
		r.rec.Event(rs, eventType, reason, message)
	}
}

// recordFailedCreate records a FailedCreate warning on rs.
func (r *Reconciler) recordFailedCreate(rs *apps.ReplicaSet, cause error) {
	r.event(rs, core.EventTypeWarning, ReasonFailedCreate, "Error creating: "+cause.Error())
}

// recordCreated records a SuccessfulCreate Event on rs for pod.
func (r *Reconciler) recordCreated(rs *apps.ReplicaSet, pod *core.Pod) {
	r.event(rs, core.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: "+pod.Name)
}

// recordDeleted records a SuccessfulDelete Event on rs for pod, or a
// FailedDelete warning when cause is set.
func (r *Reconciler) recordDeleted(rs *apps.ReplicaSet, pod *core.Pod, cause error) {
	if cause != nil {
		r.event(rs, core.EventTypeWarning, ReasonFailedDelete, "Error deleting: "+cause.Error())
		return
	}
	r.event(rs, core.EventTypeNormal, ReasonSuccessfulDelete, "Deleted pod: "+pod.Name)
}
