package job

import (
	"github.com/orkit/orkit/api/batch"
)

// Component is the source of the controller's Events.
const Component = "job-controller"

// The reasons of the controller's Events, as Kubernetes spells them.
const (
	ReasonSuccessfulCreate     = "SuccessfulCreate"
	ReasonFailedCreate         = "FailedCreate"
	ReasonSuccessfulDelete     = "SuccessfulDelete"
	ReasonFailedDelete         = "FailedDelete"
	ReasonCompleted            = "Completed"
	ReasonBackoffLimitExceeded = batch.JobReasonBackoffLimitExceeded
	ReasonDeadlineExceeded     = batch.JobReasonDeadlineExceeded
	ReasonSuspended            = "Suspended"
	ReasonResumed              = "Resumed"
)

// Messages of the Failed and Complete conditions (and their Events).
const (
	msgBackoffLimit = "Job has reached the specified backoff limit"
	msgDeadline     = "Job was active longer than specified deadline"
	msgCompleted    = "Reached expected number of succeeded pods"
	// With backoffLimitPerIndex.
	msgMaxFailedIndexes = "Job has exceeded the specified maximal number of failed indexes"
	msgFailedIndexes    = "Job has failed indexes"
)

// event records an Event on j; it never blocks nor fails.
func (r *Controller) event(j *batch.Job, eventType, reason, message string) {
	if r.rec != nil {
		r.rec.Event(j, eventType, reason, message)
	}
}
