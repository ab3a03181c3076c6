package batch

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// CronJob creates Jobs on a schedule.
type CronJob struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            CronJobSpec   `json:"spec,omitempty"`
	Status          CronJobStatus `json:"status,omitempty"`
}

// CronJobList is a list of CronJobs.
type CronJobList = meta.List[CronJob]

// ConcurrencyPolicy says what a CronJob does when a run is due while an
// earlier one is still active.
type ConcurrencyPolicy string

// The concurrency policies.
const (
	// AllowConcurrent runs the Jobs side by side (the default).
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent skips the new run.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the active Jobs and starts the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobSpec is the desired state of a CronJob.
type CronJobSpec struct {
	// Schedule in cron syntax ("*/5 * * * *", "@hourly").
	Schedule string `json:"schedule"`
	// TimeZone of the schedule (an IANA name); nil means the controller's
	// local time zone.
	TimeZone *string `json:"timeZone,omitempty"`
	// StartingDeadlineSeconds is how late a missed run may still start.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`
	// ConcurrencyPolicy: Allow (default), Forbid or Replace.
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`
	// Suspend stops further runs (default false).
	Suspend *bool `json:"suspend,omitempty"`
	// JobTemplate is the Job each run creates.
	JobTemplate JobTemplateSpec `json:"jobTemplate"`
	// SuccessfulJobsHistoryLimit finished Jobs are kept (default 3).
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`
	// FailedJobsHistoryLimit failed Jobs are kept (default 1).
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	// Active references the CronJob's running Jobs.
	Active []core.ObjectReference `json:"active,omitempty"`
	// LastScheduleTime is when a Job was last scheduled.
	LastScheduleTime *meta.Time `json:"lastScheduleTime,omitempty"`
	// LastSuccessfulTime is when a Job last completed.
	LastSuccessfulTime *meta.Time `json:"lastSuccessfulTime,omitempty"`
}
