package batch

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/orkit/orkit/api/batch/cron"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

var timeZoneChars = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// ValidateCronJob checks a new, defaulted CronJob: a DNS subdomain name of
// at most 52 characters, and its spec. A schedule may not carry TZ= or
// CRON_TZ= (use timeZone).
func ValidateCronJob(cj *CronJob) field.ErrorList {
	errs := validation.ValidateObjectMeta(&cj.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if len(cj.Name) > MaxCronJobNameLength {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name,
			fmt.Sprintf("must be no more than %d characters", MaxCronJobNameLength)))
	}
	return append(errs, validateCronJobSpec(&cj.Spec, false, field.NewPath("spec"))...)
}

// ValidateCronJobUpdate checks cj as a replacement for old. A schedule
// with TZ= or CRON_TZ= is allowed only if old's had one.
func ValidateCronJobUpdate(cj, old *CronJob) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&cj.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateCronJobSpec(&cj.Spec, strings.Contains(old.Spec.Schedule, "TZ"), field.NewPath("spec"))...)
}

func validateCronJobSpec(spec *CronJobSpec, allowTZ bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Schedule == "" {
		errs = append(errs, field.Required(p.Child("schedule"), ""))
	} else {
		errs = append(errs, validateSchedule(spec.Schedule, allowTZ, spec.TimeZone, p.Child("schedule"))...)
	}
	errs = append(errs, validateTimeZone(spec.TimeZone, p.Child("timeZone"))...)
	if spec.StartingDeadlineSeconds != nil {
		errs = append(errs, validation.ValidateNonnegativeField(*spec.StartingDeadlineSeconds, p.Child("startingDeadlineSeconds"))...)
	}
	switch spec.ConcurrencyPolicy {
	case AllowConcurrent, ForbidConcurrent, ReplaceConcurrent:
	case "":
		errs = append(errs, field.Required(p.Child("concurrencyPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("concurrencyPolicy"), string(spec.ConcurrencyPolicy),
			[]string{string(AllowConcurrent), string(ForbidConcurrent), string(ReplaceConcurrent)}))
	}
	for name, v := range map[string]*int32{"successfulJobsHistoryLimit": spec.SuccessfulJobsHistoryLimit,
		"failedJobsHistoryLimit": spec.FailedJobsHistoryLimit} {
		if v != nil {
			errs = append(errs, validation.ValidateNonnegativeField(int64(*v), p.Child(name))...)
		}
	}
	jp := p.Child("jobTemplate")
	errs = append(errs, validation.ValidateLabels(spec.JobTemplate.Labels, jp.Child("metadata", "labels"))...)
	errs = append(errs, validation.ValidateAnnotations(spec.JobTemplate.Annotations, jp.Child("metadata", "annotations"))...)
	return append(errs, validateJobSpec(&spec.JobTemplate.Spec, jp.Child("spec"))...)
}

func validateSchedule(schedule string, allowTZ bool, tz *string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, err := cron.Parse(schedule); err != nil {
		errs = append(errs, field.Invalid(p, schedule, cron.Message(err)))
	}
	switch {
	case allowTZ && strings.Contains(schedule, "TZ") && tz != nil:
		errs = append(errs, field.Invalid(p, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && strings.Contains(schedule, "TZ"):
		errs = append(errs, field.Invalid(p, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

func validateTimeZone(tz *string, p *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return field.ErrorList{field.Invalid(p, *tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !timeZoneChars.MatchString(part) {
			return field.ErrorList{field.Invalid(p, *tz, "unknown time zone "+*tz)}
		}
	}
	if strings.EqualFold(*tz, "Local") {
		return field.ErrorList{field.Invalid(p, *tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones")}
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		return field.ErrorList{field.Invalid(p, *tz, err.Error())}
	}
	return nil
}
