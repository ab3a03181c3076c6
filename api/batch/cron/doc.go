// Package cron parses the schedules of CronJobs and computes their next
// run times, accepting exactly what Kubernetes accepts (it uses
// github.com/robfig/cron/v3's ParseStandard): five fields — minute (0-59),
// hour (0-23), day of month (1-31), month (1-12 or JAN-DEC) and day of
// week (0-6 or SUN-SAT) — each a list of values, ranges ("1-5"), steps
// ("*/15", "10-50/20", "5/10" meaning 5-max/10), "*" or "?"; the
// descriptors @yearly, @annually, @monthly, @weekly, @daily, @midnight and
// @hourly; "@every <duration>" (undocumented in Kubernetes but accepted);
// and a "CRON_TZ=<zone> " or "TZ=<zone> " prefix. When both day fields are
// restricted a day matching either runs, as in cron(8).
//
// Errors wrap ErrInvalid and carry robfig's wording, which Kubernetes puts
// in its validation messages. A Schedule is immutable and safe for
// concurrent use.
package cron
