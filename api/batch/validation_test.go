package batch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func newJob() *Job {
	return &Job{ObjectMeta: meta.ObjectMeta{Name: "hi", Namespace: "default", UID: "uid-1"},
		Spec: JobSpec{Template: core.PodTemplateSpec{Spec: core.PodSpec{RestartPolicy: core.RestartPolicyNever,
			Containers: []core.Container{{Name: "hi", Image: "busybox"}}}}}}
}

func TestDefaultJob(t *testing.T) {
	j := newJob()
	DefaultJob(j)
	assert.Equal(t, int32(1), *j.Spec.Completions)
	assert.Equal(t, int32(1), *j.Spec.Parallelism)
	assert.Equal(t, int32(6), *j.Spec.BackoffLimit)
	assert.Equal(t, NonIndexedCompletion, *j.Spec.CompletionMode)
	assert.False(t, *j.Spec.Suspend)
	assert.Equal(t, map[string]string{ControllerUIDLabel: "uid-1"}, j.Spec.Selector.MatchLabels)
	want := map[string]string{ControllerUIDLabel: "uid-1", JobNameLabel: "hi", LegacyControllerUIDLabel: "uid-1", LegacyJobNameLabel: "hi"}
	assert.Equal(t, want, j.Spec.Template.Labels)
	assert.Equal(t, want, j.Labels)
	assert.Empty(t, ValidateJob(j))

	// A work queue: parallelism alone leaves completions unset.
	j = newJob()
	j.Spec.Parallelism = ptr(int32(3))
	DefaultJob(j)
	assert.Nil(t, j.Spec.Completions)

	// Without a UID (a CronJob's template) nothing is generated.
	j = newJob()
	j.UID = ""
	DefaultJob(j)
	assert.Nil(t, j.Spec.Selector)
}

func TestValidateJob(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Job)
		want   string
	}{
		{"restart policy always", func(j *Job) { j.Spec.Template.Spec.RestartPolicy = "" },
			`spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"`},
		{"negative parallelism", func(j *Job) { j.Spec.Parallelism = ptr(int32(-1)) },
			"spec.parallelism: Invalid value: -1: must be greater than or equal to 0"},
		{"negative backoff", func(j *Job) { j.Spec.BackoffLimit = ptr(int32(-1)) },
			"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
		{"negative deadline", func(j *Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(-5)) },
			"spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0"},
		{"bad mode", func(j *Job) { j.Spec.CompletionMode = ptr(CompletionMode("Odd")) },
			`spec.completionMode: Unsupported value: "Odd": supported values: "NonIndexed", "Indexed"`},
		{"indexed without completions", func(j *Job) {
			j.Spec.CompletionMode = ptr(IndexedCompletion)
			j.Spec.Parallelism = ptr(int32(2))
		}, "spec.completions: Required value: when completion mode is Indexed"},
		{"conflicting generated label", func(j *Job) {
			j.Spec.Template.Labels = map[string]string{LegacyJobNameLabel: "other"}
		}, "spec.template.metadata.labels[job-name]: Invalid value: \"other\": must be 'hi'"},
		{"selector not generated", func(j *Job) {
			j.Spec.Selector = &meta.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
		}, "spec.selector: Invalid value"},
		{"manual selector mismatch", func(j *Job) {
			j.Spec.ManualSelector = ptr(true)
			j.Spec.Selector = &meta.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
		}, "spec.template.metadata.labels: Invalid value: map[]: `selector` does not match template `labels`"},
		{"manual selector missing", func(j *Job) { j.Spec.ManualSelector = ptr(true) }, "spec.selector: Required value"},
		{"indexed hostname too long", func(j *Job) {
			j.Name = strings.Repeat("a", 62)
			j.Spec.CompletionMode = ptr(IndexedCompletion)
			j.Spec.Completions = ptr(int32(10))
		}, "will not able to create pod with invalid DNS label: " + strings.Repeat("a", 62) + "-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJob()
			tt.modify(j)
			DefaultJob(j)
			assert.Contains(t, strings.Join(messages(ValidateJob(j)), "\n"), tt.want)
		})
	}
}

func TestValidateJobUpdate(t *testing.T) {
	old := newJob()
	DefaultJob(old)
	require.Empty(t, ValidateJob(old))
	tests := []struct {
		name   string
		modify func(*Job)
		want   string
	}{
		{"template", func(j *Job) { j.Spec.Template.Spec.Containers[0].Image = "other" }, "spec.template: Invalid value"},
		{"completions", func(j *Job) { j.Spec.Completions = ptr(int32(2)) }, "spec.completions: Invalid value: 2: field is immutable"},
		{"selector", func(j *Job) { j.Spec.Selector.MatchLabels["x"] = "y" }, "spec.selector: Invalid value"},
		{"mode", func(j *Job) { j.Spec.CompletionMode = ptr(IndexedCompletion) }, "spec.completionMode: Invalid value"},
		{"parallelism may change", func(j *Job) { j.Spec.Parallelism = ptr(int32(4)) }, ""},
		{"suspend may change", func(j *Job) { j.Spec.Suspend = ptr(true) }, ""},
		{"negative status", func(j *Job) { j.Status.Failed = -1 }, "status.failed: Invalid value: -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := meta.DeepCopy(old)
			j.ResourceVersion = "2"
			tt.modify(j)
			got := strings.Join(messages(ValidateJobUpdate(j, old)), "\n")
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
		})
	}
	// A suspended Job that never started may change its template's labels
	// and scheduling directives.
	sus := meta.DeepCopy(old)
	sus.Spec.Suspend = ptr(true)
	j := meta.DeepCopy(sus)
	j.Spec.Template.Labels["extra"] = "1"
	j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
	assert.Empty(t, messages(ValidateJobUpdate(j, sus)))
}

func newCronJob() *CronJob {
	cj := &CronJob{ObjectMeta: meta.ObjectMeta{Name: "tick", Namespace: "default"},
		Spec: CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: JobTemplateSpec{Spec: newJob().Spec}}}
	DefaultCronJob(cj)
	return cj
}

func TestDefaultCronJob(t *testing.T) {
	cj := newCronJob()
	assert.Equal(t, AllowConcurrent, cj.Spec.ConcurrencyPolicy)
	assert.False(t, *cj.Spec.Suspend)
	assert.Equal(t, int32(3), *cj.Spec.SuccessfulJobsHistoryLimit)
	assert.Equal(t, int32(1), *cj.Spec.FailedJobsHistoryLimit)
	assert.Nil(t, cj.Spec.JobTemplate.Spec.BackoffLimit, "Job defaults apply when the Job is created")
	assert.Empty(t, ValidateCronJob(cj))
}

func TestValidateCronJob(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*CronJob)
		want   string
	}{
		{"no schedule", func(c *CronJob) { c.Spec.Schedule = "" }, "spec.schedule: Required value"},
		{"bad schedule", func(c *CronJob) { c.Spec.Schedule = "* * *" },
			`spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]`},
		{"out of range", func(c *CronJob) { c.Spec.Schedule = "0 25 * * *" },
			`spec.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25`},
		{"TZ in schedule", func(c *CronJob) { c.Spec.Schedule = "CRON_TZ=UTC * * * * *" },
			"cannot use TZ or CRON_TZ in schedule, use timeZone field instead"},
		{"bad zone", func(c *CronJob) { c.Spec.TimeZone = ptr("Nowhere/Atlantis") },
			`spec.timeZone: Invalid value: "Nowhere/Atlantis": unknown time zone Nowhere/Atlantis`},
		{"local zone", func(c *CronJob) { c.Spec.TimeZone = ptr("Local") },
			"timeZone must be an explicit time zone"},
		{"policy", func(c *CronJob) { c.Spec.ConcurrencyPolicy = "Sometimes" },
			`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`},
		{"long name", func(c *CronJob) { c.Name = strings.Repeat("c", 53) }, "must be no more than 52 characters"},
		{"restart policy", func(c *CronJob) { c.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = core.RestartPolicyAlways },
			`spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: "Always"`},
		{"negative history", func(c *CronJob) { c.Spec.FailedJobsHistoryLimit = ptr(int32(-1)) },
			"spec.failedJobsHistoryLimit: Invalid value: -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := newCronJob()
			tt.modify(cj)
			assert.Contains(t, strings.Join(messages(ValidateCronJob(cj)), "\n"), tt.want)
		})
	}
	// A TZ= schedule already stored may stay on update.
	old := newCronJob()
	old.Spec.Schedule = "TZ=UTC 0 * * * *"
	upd := meta.DeepCopy(old)
	upd.ResourceVersion = "2"
	assert.Empty(t, messages(ValidateCronJobUpdate(upd, old)))
}
