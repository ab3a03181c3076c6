package apiserver

import (
	"fmt"
	"time"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/meta"
)

// The columns kubectl shows for Jobs and CronJobs, as kube-apiserver's
// printers define them.
var (
	jobTable = &TableConvertor{
		Columns: []TableColumn{
			col("Status", "string", "Status of the job.", 0),
			col("Completions", "string", "The number of pods which reached phase Succeeded.", 0),
			col("Duration", "string", "Time required to complete the job.", 0),
			col("Containers", "string", "Names of each container in the template.", 1),
			col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "A label query over pods that should match the pod count.", 1),
		},
		Cells: func(obj meta.Object) []any {
			j := obj.(*batch.Job)
			names, images := containersOf(&j.Spec.Template.Spec)
			return []any{jobStatus(j), jobCompletions(j), jobDuration(j, time.Now()), names, images, selectorString(j.Spec.Selector)}
		},
	}
	cronJobTable = &TableConvertor{
		Columns: []TableColumn{
			col("Schedule", "string", "The schedule in Cron format.", 0),
			col("Timezone", "string", "The time zone name for the given schedule.", 0),
			col("Suspend", "boolean", "This flag tells the controller to suspend subsequent executions.", 0),
			col("Active", "integer", "A list of pointers to currently running jobs.", 0),
			col("Last Schedule", "string", "Information when was the last time the job was successfully scheduled.", 0),
			col("Containers", "string", "Names of each container in the template.", 1),
			col("Images", "string", "Images referenced by each container in the template.", 1),
			col("Selector", "string", "A label query over pods that should match the pod count.", 1),
		},
		Cells: func(obj meta.Object) []any {
			cj := obj.(*batch.CronJob)
			last := "<none>"
			if t := cj.Status.LastScheduleTime; t != nil {
				last = HumanAge(*t, time.Now())
			}
			tz := "<none>"
			if cj.Spec.TimeZone != nil {
				tz = *cj.Spec.TimeZone
			}
			suspend := "<unset>"
			if cj.Spec.Suspend != nil {
				suspend = "False"
				if *cj.Spec.Suspend {
					suspend = "True"
				}
			}
			names, images := containersOf(&cj.Spec.JobTemplate.Spec.Template.Spec)
			return []any{cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, names, images,
				selectorString(cj.Spec.JobTemplate.Spec.Selector)}
		},
	}
)

// jobStatus is the STATUS column: the first true of Complete, Failed,
// (being deleted), Suspended, FailureTarget, SuccessCriteriaMet, else
// Running.
func jobStatus(j *batch.Job) string {
	has := func(t batch.JobConditionType) bool {
		c := batch.FindCondition(&j.Status, t)
		return c != nil && c.Status == meta.ConditionTrue
	}
	switch {
	case has(batch.JobComplete):
		return "Complete"
	case has(batch.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case has(batch.JobSuspended):
		return "Suspended"
	case has(batch.JobFailureTarget):
		return "FailureTarget"
	case has(batch.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// jobCompletions is the COMPLETIONS column: "succeeded/completions", or
// for a work queue "succeeded/1" ("of <parallelism>" when above 1).
func jobCompletions(j *batch.Job) string {
	if c := j.Spec.Completions; c != nil {
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *c)
	}
	if p := j.Spec.Parallelism; p != nil && *p > 1 {
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *p)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}

// jobDuration is the DURATION column: from start to completion, or to now
// while running; empty before the start.
func jobDuration(j *batch.Job, now time.Time) string {
	switch {
	case j.Status.StartTime == nil:
		return ""
	case j.Status.CompletionTime == nil:
		return HumanDuration(now.Sub(j.Status.StartTime.Time))
	}
	return HumanDuration(j.Status.CompletionTime.Sub(j.Status.StartTime.Time))
}
