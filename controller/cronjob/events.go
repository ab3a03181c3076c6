package cronjob

import (
	"github.com/orkit/orkit/api/batch"
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

func (r *Controller) eventf(cj *batch.CronJob, eventType, reason, format string, args ...any) {
	if r.rec != nil {
		r.rec.Eventf(cj, eventType, reason, format, args...)
	}
}
