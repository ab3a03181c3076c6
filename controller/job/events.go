package job

import (
	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
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
)

// newRecorder returns opts.Recorder, or a record.Writer of the
// controller's own, run by the manager.
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

// event records an Event on j; it never blocks nor fails.
func (r *Reconciler) event(j *batch.Job, eventType, reason, message string) {
	if r.rec != nil {
		r.rec.Event(j, eventType, reason, message)
	}
}
