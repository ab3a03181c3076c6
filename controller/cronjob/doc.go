// Package cronjob is the CronJob controller: it creates a batch/v1 CronJob's
// Jobs at its schedule's times, as kube-controller-manager's cronjob
// controller (v2) does.
//
//	CronJob or Job event ──▶ queue ──▶ Reconcile(cronjob)
//	    status:   active[] from its unfinished Jobs (finished or vanished ones leave),
//	              lastSuccessfulTime from its completed Jobs
//	    history:  delete the oldest finished Jobs beyond successful/failedJobsHistoryLimit
//	    schedule: the most recent unmet schedule time since lastScheduleTime (or creation,
//	              or now - startingDeadlineSeconds); too late ─▶ MissSchedule Event;
//	              more than 100 missed ─▶ TooManyMissedTimes Event (the latest still runs)
//	    run:      concurrencyPolicy Forbid skips while a Job is active, Replace deletes the
//	              active Jobs; create <cronjob>-<minutes since the epoch>; lastScheduleTime
//	    requeue:  at the next schedule time
//
// Job names are deterministic, so a time is never run twice. Schedules are
// parsed by api/batch/cron, in spec.timeZone when set, else in the zone
// of the controller's clock (as Kubernetes uses the controller manager's
// local time). The controller reads time from
// Config.Clock, and its delayed requeues run on it, so tests can move
// time instead of waiting for minutes.
package cronjob
