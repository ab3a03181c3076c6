package batch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// indexedJob is a valid Indexed Job of n completions.
func indexedJob(n int32) *Job {
	j := newJob()
	j.Spec.CompletionMode = ptr(IndexedCompletion)
	j.Spec.Completions, j.Spec.Parallelism = ptr(n), ptr(n)
	return j
}

func exitCodeRule(a PodFailurePolicyAction, op PodFailurePolicyOnExitCodesOperator, v ...int32) PodFailurePolicyRule {
	return PodFailurePolicyRule{Action: a, OnExitCodes: &PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: v}}
}

func TestDefaultJobPolicies(t *testing.T) {
	j := indexedJob(4)
	j.Spec.BackoffLimitPerIndex = ptr(int32(1))
	j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{
		{Action: PodFailurePolicyActionIgnore, OnPodConditions: []PodFailurePolicyOnPodConditionsPattern{{Type: core.DisruptionTarget}}}}}
	DefaultJob(j)
	assert.Equal(t, int32(2147483647), *j.Spec.BackoffLimit, "backoffLimitPerIndex lifts the global limit")
	assert.Equal(t, Failed, *j.Spec.PodReplacementPolicy, "a podFailurePolicy replaces only failed pods")
	assert.Equal(t, meta.ConditionTrue, j.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status)
	assert.Empty(t, ValidateJob(j))
}

func TestValidateJobPolicies(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Job)
		want   string // "" for valid
	}{
		{"valid FailJob on exit code", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailJob, "In", 1, 42)}}
		}, ""},
		{"valid success policy", func(j *Job) {
			j.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededIndexes: ptr("0,2-3"), SucceededCount: ptr(int32(2))}}}
		}, ""},
		{"both exit codes and conditions", func(j *Job) {
			r := exitCodeRule(PodFailurePolicyActionIgnore, "In", 1)
			r.OnPodConditions = []PodFailurePolicyOnPodConditionsPattern{{Type: core.DisruptionTarget, Status: meta.ConditionTrue}}
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{r}}
		}, "spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"},
		{"neither exit codes nor conditions", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{{Action: PodFailurePolicyActionCount}}}
		}, "specifying one of OnExitCodes and OnPodConditions is required"},
		{"unknown action", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule("Retry", "In", 1)}}
		}, `spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry"`},
		{"missing action", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule("", "In", 1)}}
		}, "spec.podFailurePolicy.rules[0].action: Required value"},
		{"FailIndex without backoffLimitPerIndex", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailIndex, "In", 1)}}
		}, `spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`},
		{"exit code 0 with In", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailJob, "In", 0, 1)}}
		}, "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator"},
		{"unordered and duplicate exit codes", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailJob, "NotIn", 3, 1, 1)}}
		}, "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 1\nspec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [3 1 1]: must be ordered"},
		{"no exit codes", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailJob, "In")}}
		}, "at least one value is required"},
		{"bad operator", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailJob, "Equals", 1)}}
		}, `spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "Equals"`},
		{"unknown container", func(j *Job) {
			r := exitCodeRule(PodFailurePolicyActionFailJob, "In", 1)
			r.OnExitCodes.ContainerName = ptr("nope")
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{r}}
		}, `onExitCodes.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template`},
		{"bad condition status", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{{Action: PodFailurePolicyActionIgnore,
				OnPodConditions: []PodFailurePolicyOnPodConditionsPattern{{Type: "Ready", Status: "Maybe"}}}}}
		}, `spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Maybe"`},
		{"bad condition type", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{{Action: PodFailurePolicyActionIgnore,
				OnPodConditions: []PodFailurePolicyOnPodConditionsPattern{{Type: "not a name", Status: meta.ConditionTrue}}}}}
		}, `spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "not a name"`},
		{"too many rules", func(j *Job) {
			j.Spec.PodFailurePolicy = &PodFailurePolicy{}
			for range 21 {
				j.Spec.PodFailurePolicy.Rules = append(j.Spec.PodFailurePolicy.Rules, exitCodeRule(PodFailurePolicyActionCount, "In", 1))
			}
		}, "spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items"},
		{"OnFailure with a pod failure policy", func(j *Job) {
			j.Spec.Template.Spec.RestartPolicy = core.RestartPolicyOnFailure
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailJob, "In", 1)}}
		}, `spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`},
		{"TerminatingOrFailed with a pod failure policy", func(j *Job) {
			j.Spec.PodReplacementPolicy = ptr(TerminatingOrFailed)
			j.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailJob, "In", 1)}}
		}, `spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`},
		{"negative backoffLimitPerIndex", func(j *Job) { j.Spec.BackoffLimitPerIndex = ptr(int32(-1)) },
			"spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0"},
		{"maxFailedIndexes without backoffLimitPerIndex", func(j *Job) { j.Spec.MaxFailedIndexes = ptr(int32(1)) },
			"spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"},
		{"maxFailedIndexes above completions", func(j *Job) {
			j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr(int32(1)), ptr(int32(5))
		}, "spec.maxFailedIndexes: Invalid value: 5: must be less than or equal to completions"},
		{"per-index limits on a NonIndexed Job", func(j *Job) {
			j.Spec.CompletionMode = ptr(NonIndexedCompletion)
			j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr(int32(1)), ptr(int32(1))
		}, "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode\nspec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode"},
		{"success policy on a NonIndexed Job", func(j *Job) {
			j.Spec.CompletionMode = ptr(NonIndexedCompletion)
			j.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededCount: ptr(int32(1))}}}
		}, "spec.successPolicy: Invalid value"},
		{"success policy without rules", func(j *Job) { j.Spec.SuccessPolicy = &SuccessPolicy{} },
			"spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified"},
		{"empty success rule", func(j *Job) { j.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{}}} },
			"spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified"},
		{"succeededIndexes beyond completions", func(j *Job) {
			j.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededIndexes: ptr("1-4")}}}
		}, `spec.successPolicy.rules[0].succeededIndexes: Invalid value: "1-4": error parsing succeededIndexes: too large index: "4"`},
		{"malformed succeededIndexes", func(j *Job) {
			j.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededIndexes: ptr("2,1")}}}
		}, "error parsing succeededIndexes: non-increasing order, previous: 2, current: 1"},
		{"succeededCount above the indexes", func(j *Job) {
			j.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededIndexes: ptr("0-1"), SucceededCount: ptr(int32(3))}}}
		}, "spec.successPolicy.rules[0].succeededCount: Invalid value: 3: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)"},
		{"succeededCount above completions", func(j *Job) {
			j.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededCount: ptr(int32(5))}}}
		}, "must be less than or equal to 4 (the number of specified completions)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := indexedJob(4)
			tt.modify(j)
			DefaultJob(j)
			got := strings.Join(messages(ValidateJob(j)), "\n")
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
		})
	}
}

func TestValidateJobPolicyUpdate(t *testing.T) {
	old := indexedJob(4)
	old.Spec.BackoffLimitPerIndex = ptr(int32(1))
	old.Spec.PodFailurePolicy = &PodFailurePolicy{Rules: []PodFailurePolicyRule{exitCodeRule(PodFailurePolicyActionFailIndex, "In", 1)}}
	old.Spec.SuccessPolicy = &SuccessPolicy{Rules: []SuccessPolicyRule{{SucceededCount: ptr(int32(2))}}}
	DefaultJob(old)
	require.Empty(t, ValidateJob(old))
	tests := []struct {
		name   string
		modify func(*Job)
		want   string
	}{
		{"pod failure policy", func(j *Job) { j.Spec.PodFailurePolicy.Rules[0].OnExitCodes.Values = []int32{2} },
			"spec.podFailurePolicy: Invalid value"},
		{"backoffLimitPerIndex", func(j *Job) { j.Spec.BackoffLimitPerIndex = ptr(int32(2)) },
			"spec.backoffLimitPerIndex: Invalid value: 2: field is immutable"},
		{"success policy", func(j *Job) { j.Spec.SuccessPolicy = nil }, "spec.successPolicy: Invalid value"},
		{"maxFailedIndexes may change", func(j *Job) { j.Spec.MaxFailedIndexes = ptr(int32(1)) }, ""},
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
}

func TestParseIndexes(t *testing.T) {
	tests := []struct {
		in      string
		want    []IndexInterval
		wantErr string
	}{
		{"", nil, ""},
		{"0", []IndexInterval{{0, 0}}, ""},
		{"0,2-4,7", []IndexInterval{{0, 0}, {2, 4}, {7, 7}}, ""},
		{"1-1", nil, "non-increasing order, previous: 1, current: 1"},
		{"3,1", nil, "non-increasing order, previous: 3, current: 1"},
		{"1-2-3", nil, "at most two parts"},
		{"a", nil, `cannot convert string to integer for index: "a"`},
		{"8", nil, `too large index: "8"`},
		{"0,,1", nil, `cannot convert string to integer for index: ""`},
		{"99999999999", nil, "cannot convert"},
	}
	for _, tt := range tests {
		got, err := ParseIndexes(tt.in, 8)
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	n, err := CountIndexes("0,2-4,7", 8)
	require.NoError(t, err)
	assert.Equal(t, int32(5), n)
}

func FuzzParseIndexes(f *testing.F) {
	for _, s := range []string{"", "0", "0,2-4,7", "3,1", "1-2-3", "-1", "0-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ivs, err := ParseIndexes(s, 1000)
		if err != nil {
			return
		}
		for i, iv := range ivs {
			if iv.First > iv.Last || iv.Last >= 1000 || (i > 0 && ivs[i-1].Last >= iv.First) {
				t.Fatalf("%q parsed to bad intervals %v", s, ivs)
			}
		}
	})
}
