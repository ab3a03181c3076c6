package batch

import (
	"math"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func ptr[T any](v T) *T { return &v }

// DefaultJob fills j's unset fields as Kubernetes' batch/v1 does:
// completions and parallelism 1 when both are unset (parallelism 1 when
// only it is), backoffLimit 6 (2147483647 with backoffLimitPerIndex),
// completionMode NonIndexed, suspend false, podReplacementPolicy
// TerminatingOrFailed (Failed with a podFailurePolicy), the status True of
// podFailurePolicy's condition patterns and the pod template's defaults. When j has a UID (the API server assigns it before
// defaulting) and manualSelector is not true, it also generates the
// selector and template labels, as the API server's Job strategy does:
// the template gets batch.kubernetes.io/controller-uid and
// batch.kubernetes.io/job-name (and the unprefixed controller-uid and
// job-name) unless it sets them, and the selector matches the prefixed
// controller-uid. A Job without labels then takes its template's labels.
// It is idempotent.
func DefaultJob(j *Job) {
	s := &j.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptr(int32(1))
	}
	if s.Parallelism == nil {
		s.Parallelism = ptr(int32(1))
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptr(int32(math.MaxInt32))
		} else {
			s.BackoffLimit = ptr(int32(6))
		}
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptr(NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptr(Failed)
		} else {
			s.PodReplacementPolicy = ptr(TerminatingOrFailed)
		}
	}
	if s.PodFailurePolicy != nil {
		for i := range s.PodFailurePolicy.Rules {
			for k := range s.PodFailurePolicy.Rules[i].OnPodConditions {
				if c := &s.PodFailurePolicy.Rules[i].OnPodConditions[k]; c.Status == "" {
					c.Status = meta.ConditionTrue
				}
			}
		}
	}
	core.DefaultPodTemplateSpec(&s.Template)
	if j.UID != "" && (s.ManualSelector == nil || !*s.ManualSelector) {
		GenerateSelector(j)
	}
	if len(j.Labels) == 0 && s.Template.Labels != nil {
		j.Labels = map[string]string{}
		for k, v := range s.Template.Labels {
			j.Labels[k] = v
		}
	}
}

// GenerateSelector adds the generated labels to j's pod template (those it
// does not set already: a conflicting one is reported by validation) and
// the prefixed controller-uid to its selector's matchLabels.
func GenerateSelector(j *Job) {
	t := &j.Spec.Template
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	for k, v := range map[string]string{
		LegacyJobNameLabel: j.Name, JobNameLabel: j.Name,
		LegacyControllerUIDLabel: string(j.UID), ControllerUIDLabel: string(j.UID),
	} {
		if _, ok := t.Labels[k]; !ok {
			t.Labels[k] = v
		}
	}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &meta.LabelSelector{}
	}
	if j.Spec.Selector.MatchLabels == nil {
		j.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := j.Spec.Selector.MatchLabels[ControllerUIDLabel]; !ok {
		j.Spec.Selector.MatchLabels[ControllerUIDLabel] = string(j.UID)
	}
}

// DefaultCronJob fills cj's unset fields as Kubernetes' batch/v1 does:
// concurrencyPolicy Allow, suspend false, successfulJobsHistoryLimit 3,
// failedJobsHistoryLimit 1, and the defaults of the job template's pod
// template (the Job defaults apply when the Job is created).
func DefaultCronJob(cj *CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr(int32(3))
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr(int32(1))
	}
	core.DefaultPodTemplateSpec(&s.JobTemplate.Spec.Template)
}
