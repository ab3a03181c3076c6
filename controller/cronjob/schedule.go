package cronjob

import (
	"fmt"
	"time"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/batch/cron"
)

// maxMissed is how many missed start times are fine; more means a wrong
// clock or a long outage, and only the latest is run.
const maxMissed = 100

// Schedule parses cj's schedule in its time zone (spec.timeZone, as a
// TZ= prefix the way Kubernetes does).
func Schedule(cj *batch.CronJob) (*cron.Schedule, error) {
	spec := cj.Spec.Schedule
	if cj.Spec.TimeZone != nil {
		if _, err := time.LoadLocation(*cj.Spec.TimeZone); err != nil {
			return nil, fmt.Errorf("invalid timeZone %q: %w", *cj.Spec.TimeZone, err)
		}
		spec = "TZ=" + *cj.Spec.TimeZone + " " + spec
	}
	return cron.Parse(spec)
}

// MostRecent returns the latest time at or before now at which cj should
// have started a Job and has not (after lastScheduleTime, or its
// creation; never before now - startingDeadlineSeconds), and how many
// such times there were. It returns nil when there is none. The count
// is exact up to maxMissed+1; beyond it the search jumps ahead by the
// schedule's interval and the count is an estimate.
func MostRecent(cj *batch.CronJob, s *cron.Schedule, now time.Time) (*time.Time, int) {
	earliest := cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if limit := now.Add(-time.Duration(*d) * time.Second); limit.After(earliest) {
			earliest = limit
		}
	}
	var last time.Time
	missed := 0
	for t := s.Next(earliest); !t.IsZero() && !t.After(now); t = s.Next(t) {
		if missed == maxMissed+1 {
			// Far behind: skip to shortly before now, estimating how many
			// times the jump passes over from the schedule's interval.
			if interval := t.Sub(last); interval > 0 {
				if j := s.Next(now.Add(-2 * interval)); !j.IsZero() && j.After(t) && !j.After(now) {
					missed += int(j.Sub(t) / interval)
					t = j
				}
			}
		}
		last = t
		missed++
	}
	if last.IsZero() {
		return nil, 0
	}
	return &last, missed
}

// JobName is the name of cj's Job for the scheduled time: the CronJob's
// name and the minutes since the epoch.
func JobName(cj *batch.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}
