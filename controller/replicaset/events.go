package replicaset

import (
	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
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

// event records an Event on rs (kubectl describe shows them). It never
// blocks nor fails: the recorder drops what it cannot write. A Controller
// made without a recorder records nothing.
func (r *Controller) event(rs *apps.ReplicaSet, eventType, reason, message string) {
	if r.rec != nil {
		r.rec.Event(rs, eventType, reason, message)
	}
}

// recordFailedCreate records a FailedCreate warning on rs.
func (r *Controller) recordFailedCreate(rs *apps.ReplicaSet, cause error) {
	r.event(rs, core.EventTypeWarning, ReasonFailedCreate, "Error creating: "+cause.Error())
}

// recordCreated records a SuccessfulCreate Event on rs for pod.
func (r *Controller) recordCreated(rs *apps.ReplicaSet, pod *core.Pod) {
	r.event(rs, core.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: "+pod.Name)
}

// recordDeleted records a SuccessfulDelete Event on rs for pod, or a
// FailedDelete warning when cause is set.
func (r *Controller) recordDeleted(rs *apps.ReplicaSet, pod *core.Pod, cause error) {
	if cause != nil {
		r.event(rs, core.EventTypeWarning, ReasonFailedDelete, "Error deleting: "+cause.Error())
		return
	}
	r.event(rs, core.EventTypeNormal, ReasonSuccessfulDelete, "Deleted pod: "+pod.Name)
}
