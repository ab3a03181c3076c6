package cronjob

import (
	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
)

// Component is the source of the controller's Events.
const Component = "cronjob-controller"

// The reasons of the controller's Events, as Kubernetes spells them.
const (
	ReasonSuccessfulCreate    = "SuccessfulCreate"
	ReasonFailedCreate        = "FailedCreate"
	ReasonSuccessfulDelete    = "SuccessfulDelete"
	ReasonFailedDelete        = "FailedDelete"
	ReasonSawCompletedJob     = "SawCompletedJob"
	ReasonMissingJob          = "MissingJob"
	ReasonMissSchedule        = "MissSchedule"
	ReasonTooManyMissedTimes  = "TooManyMissedTimes"
	ReasonJobAlreadyActive    = "JobAlreadyActive"
	ReasonUnparseableSchedule = "UnparseableSchedule"
	ReasonUnknownTimeZone     = "UnknownTimeZone"
)

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

func (r *Reconciler) eventf(cj *batch.CronJob, eventType, reason, format string, args ...any) {
	if r.rec != nil {
		r.rec.Eventf(cj, eventType, reason, format, args...)
	}
}
