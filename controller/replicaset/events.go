package replicaset

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// Component is the source of the ReplicaSet controller's Events, and
// ComponentReplicationController the replication controller's.
const (
	Component                      = "replicaset-controller"
	ComponentReplicationController = "replication-controller"
)

// The reasons of the controller's Events, as Kubernetes' pod control
// spells them.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
)

// event records an Event on owner (kubectl describe shows them). It never
// blocks nor fails: the recorder drops what it cannot write. A Controller
// made without a recorder records nothing.
func (r *Controller) event(owner meta.Object, eventType, reason, message string) {
	if r.rec != nil {
		r.rec.Event(owner, eventType, reason, message)
	}
}

// recordFailedCreate records a FailedCreate warning on owner.
func (r *Controller) recordFailedCreate(owner meta.Object, cause error) {
	r.event(owner, core.EventTypeWarning, ReasonFailedCreate, "Error creating: "+cause.Error())
}

// recordCreated records a SuccessfulCreate Event on owner for pod.
func (r *Controller) recordCreated(owner meta.Object, pod *core.Pod) {
	r.event(owner, core.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: "+pod.Name)
}

// recordDeleted records a SuccessfulDelete Event on owner for pod, or a
// FailedDelete warning when cause is set.
func (r *Controller) recordDeleted(owner meta.Object, pod *core.Pod, cause error) {
	if cause != nil {
		r.event(owner, core.EventTypeWarning, ReasonFailedDelete, "Error deleting: "+cause.Error())
		return
	}
	r.event(owner, core.EventTypeNormal, ReasonSuccessfulDelete, "Deleted pod: "+pod.Name)
}
