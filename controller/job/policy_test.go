package job

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// exited gives p one container that terminated with code.
func exited(code int32) func(*core.Pod) {
	return func(p *core.Pod) {
		p.Status.ContainerStatuses = []core.ContainerStatus{{Name: "c",
			State: core.ContainerState{Terminated: &core.ContainerStateTerminated{ExitCode: code}}}}
	}
}

func all(mods ...func(*core.Pod)) func(*core.Pod) {
	return func(p *core.Pod) {
		for _, m := range mods {
			m(p)
		}
	}
}

func failures(n string) func(*core.Pod) {
	return func(p *core.Pod) { p.Annotations[batch.JobIndexFailureCountAnnotation] = n }
}

func disrupted(p *core.Pod) {
	p.Status.Conditions = append(p.Status.Conditions, core.PodCondition{Type: core.DisruptionTarget, Status: meta.ConditionTrue})
}

func rule(a batch.PodFailurePolicyAction, codes ...int32) batch.PodFailurePolicyRule {
	return batch.PodFailurePolicyRule{Action: a, OnExitCodes: &batch.PodFailurePolicyOnExitCodesRequirement{
		Operator: batch.PodFailurePolicyOnExitCodesOpIn, Values: codes}}
}

func TestMatchFailurePolicy(t *testing.T) {
	pfp := &batch.PodFailurePolicy{Rules: []batch.PodFailurePolicyRule{
		rule(batch.PodFailurePolicyActionFailJob, 1),
		{Action: batch.PodFailurePolicyActionIgnore, OnPodConditions: []batch.PodFailurePolicyOnPodConditionsPattern{
			{Type: core.DisruptionTarget, Status: meta.ConditionTrue}}},
		{Action: "Unknown", OnExitCodes: &batch.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{3}}},
		{Action: batch.PodFailurePolicyActionCount, OnExitCodes: &batch.PodFailurePolicyOnExitCodesRequirement{
			Operator: batch.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{1, 2}}},
	}}
	tests := []struct {
		name    string
		mod     func(*core.Pod)
		want    failureVerdict
		failJob string
	}{
		{"exit 1 fails the job", exited(1), failureVerdict{count: true, action: batch.PodFailurePolicyActionFailJob},
			"Container c for pod ns/p failed with exit code 1 matching FailJob rule at index 0"},
		{"disruption ignored", all(exited(137), disrupted), failureVerdict{action: batch.PodFailurePolicyActionIgnore}, ""},
		{"unknown action skipped, NotIn counts", exited(3), failureVerdict{count: true, action: batch.PodFailurePolicyActionCount}, ""},
		{"exit 2 matches nothing", exited(2), failureVerdict{count: true}, ""},
		{"exit 0 never matches", exited(0), failureVerdict{count: true}, ""},
		{"no statuses", nil, failureVerdict{count: true}, ""},
	}
	j := &batch.Job{Spec: batch.JobSpec{PodFailurePolicy: pfp}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("p", core.PodFailed, tt.mod)
			p.Namespace = "ns"
			got := matchFailurePolicy(j, p)
			assert.Equal(t, tt.failJob, got.failJob)
			got.failJob = ""
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Equal(t, failureVerdict{count: true}, matchFailurePolicy(&batch.Job{}, pod("p", core.PodFailed, exited(1))))
	// A rule restricted to another container does not match.
	named := &batch.Job{Spec: batch.JobSpec{PodFailurePolicy: &batch.PodFailurePolicy{Rules: []batch.PodFailurePolicyRule{rule(batch.PodFailurePolicyActionIgnore, 1)}}}}
	named.Spec.PodFailurePolicy.Rules[0].OnExitCodes.ContainerName = ptr("other")
	assert.True(t, matchFailurePolicy(named, pod("p", core.PodFailed, exited(1))).count)
}

func TestMatchSuccessPolicy(t *testing.T) {
	tests := []struct {
		name      string
		rules     []batch.SuccessPolicyRule
		succeeded []int
		want      string
	}{
		{"count met", []batch.SuccessPolicyRule{{SucceededCount: ptr(int32(1))}}, []int{3}, "Matched rules at index 0"},
		{"count not met", []batch.SuccessPolicyRule{{SucceededCount: ptr(int32(2))}}, []int{3}, ""},
		{"indexes met", []batch.SuccessPolicyRule{{SucceededCount: ptr(int32(9))}, {SucceededIndexes: ptr("0,2")}}, []int{0, 2, 4}, "Matched rules at index 1"},
		{"indexes not all", []batch.SuccessPolicyRule{{SucceededIndexes: ptr("0-2")}}, []int{0, 2}, ""},
		{"indexes and count", []batch.SuccessPolicyRule{{SucceededIndexes: ptr("0-2"), SucceededCount: ptr(int32(2))}}, []int{0, 2}, "Matched rules at index 0"},
		{"malformed indexes skipped", []batch.SuccessPolicyRule{{SucceededIndexes: ptr("2,1")}}, []int{1, 2}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &batch.Job{Spec: batch.JobSpec{CompletionMode: ptr(batch.IndexedCompletion), Completions: ptr(int32(5)),
				SuccessPolicy: &batch.SuccessPolicy{Rules: tt.rules}}}
			var s indexSet
			for _, i := range tt.succeeded {
				s.add(i)
			}
			msg, met := matchSuccessPolicy(j, s)
			assert.Equal(t, tt.want != "", met)
			assert.Equal(t, tt.want, msg)
		})
	}
}

// TestPolicyOutcome runs newState over Jobs with the policies and checks
// the condition they end with, the failed indexes, and what is counted.
func TestPolicyOutcome(t *testing.T) {
	perIndex := func(limit int32, maxFailed *int32, pfp ...batch.PodFailurePolicyRule) batch.JobSpec {
		s := batch.JobSpec{CompletionMode: ptr(batch.IndexedCompletion), Completions: ptr(int32(4)), Parallelism: ptr(int32(2)),
			BackoffLimitPerIndex: ptr(limit), MaxFailedIndexes: maxFailed}
		if len(pfp) > 0 {
			s.PodFailurePolicy = &batch.PodFailurePolicy{Rules: pfp}
		}
		return s
	}
	tests := []struct {
		name        string
		spec        batch.JobSpec
		pods        []*core.Pod
		reason      string // "" means not finishing
		failedIdx   string
		uncountedF  int
		unfinalized int
	}{
		{"FailJob rule", batch.JobSpec{Completions: ptr(int32(4)), PodFailurePolicy: &batch.PodFailurePolicy{
			Rules: []batch.PodFailurePolicyRule{rule(batch.PodFailurePolicyActionFailJob, 1)}}},
			[]*core.Pod{pod("a", core.PodFailed, exited(1)), pod("b", core.PodRunning, nil)}, batch.JobReasonPodFailurePolicy, "", 1, 1},
		{"FailJob releases a pod held in deletion", batch.JobSpec{Completions: ptr(int32(4)), PodFailurePolicy: &batch.PodFailurePolicy{
			Rules: []batch.PodFailurePolicyRule{rule(batch.PodFailurePolicyActionFailJob, 1)}}},
			[]*core.Pod{pod("a", core.PodFailed, exited(1)), pod("b", core.PodRunning, terminating)}, batch.JobReasonPodFailurePolicy, "", 2, 2},
		{"Ignore rule not counted", batch.JobSpec{Completions: ptr(int32(4)), BackoffLimit: ptr(int32(0)), PodFailurePolicy: &batch.PodFailurePolicy{
			Rules: []batch.PodFailurePolicyRule{{Action: batch.PodFailurePolicyActionIgnore,
				OnPodConditions: []batch.PodFailurePolicyOnPodConditionsPattern{{Type: core.DisruptionTarget, Status: meta.ConditionTrue}}}}}},
			[]*core.Pod{pod("a", core.PodFailed, all(exited(137), disrupted))}, "", "", 0, 1},
		{"terminating pod waits for its phase", batch.JobSpec{Completions: ptr(int32(4)), BackoffLimit: ptr(int32(0)), PodFailurePolicy: &batch.PodFailurePolicy{
			Rules: []batch.PodFailurePolicyRule{rule(batch.PodFailurePolicyActionFailJob, 1)}}},
			[]*core.Pod{pod("a", core.PodRunning, terminating)}, "", "", 0, 0},
		{"index retried within its limit", perIndex(1, nil),
			[]*core.Pod{pod("a", core.PodFailed, all(indexed("1"), failures("0")))}, "", "", 1, 1},
		{"index fails past its limit", perIndex(1, nil),
			[]*core.Pod{pod("a", core.PodFailed, all(indexed("1"), failures("1")))}, "", "1", 1, 1},
		{"all indexes done with failures", perIndex(0, nil),
			[]*core.Pod{pod("a", core.PodFailed, all(indexed("1"), failures("0"))), pod("b", core.PodFailed, all(indexed("3"), failures("0"))),
				pod("c", core.PodSucceeded, indexed("0")), pod("d", core.PodSucceeded, indexed("2"))},
			batch.JobReasonFailedIndexes, "1,3", 2, 4},
		{"maxFailedIndexes exceeded", perIndex(0, ptr(int32(0))),
			[]*core.Pod{pod("a", core.PodFailed, all(indexed("0"), failures("0"))), pod("b", core.PodRunning, indexed("1"))},
			batch.JobReasonMaxFailedIndexesExceeded, "0", 1, 1},
		{"FailIndex rule fails the index at once", perIndex(3, nil, rule(batch.PodFailurePolicyActionFailIndex, 1)),
			[]*core.Pod{pod("a", core.PodFailed, all(indexed("1"), failures("0"), exited(1)))}, "", "1", 1, 1},
		{"success policy", batch.JobSpec{CompletionMode: ptr(batch.IndexedCompletion), Completions: ptr(int32(5)),
			SuccessPolicy: &batch.SuccessPolicy{Rules: []batch.SuccessPolicyRule{{SucceededIndexes: ptr("0")}}}},
			[]*core.Pod{pod("a", core.PodSucceeded, indexed("0")), pod("b", core.PodRunning, indexed("1"))}, batch.JobReasonSuccessPolicy, "", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &batch.Job{ObjectMeta: meta.ObjectMeta{Name: "j", Namespace: "ns", UID: "u"}, Spec: tt.spec}
			j.Spec.Template.Spec = core.PodSpec{RestartPolicy: core.RestartPolicyNever, Containers: []core.Container{{Name: "c", Image: "i"}}}
			batch.DefaultJob(j)
			require.Empty(t, batch.ValidateJob(j))
			for _, p := range tt.pods {
				if p.Annotations == nil {
					p.Annotations = map[string]string{}
				}
			}
			s := newState(j, tt.pods, time.Now())
			if tt.reason == "" {
				assert.Nil(t, s.finishing)
			} else if assert.NotNil(t, s.finishing) {
				assert.Equal(t, tt.reason, s.finishing.Reason)
			}
			assert.Equal(t, tt.failedIdx, s.failedIdx.String())
			assert.Len(t, s.uncounted.Failed, tt.uncountedF)
			assert.Len(t, s.toUnfinalize, tt.unfinalized)
			st := s.status(j, time.Now())
			if batch.HasBackoffLimitPerIndex(j) {
				require.NotNil(t, st.FailedIndexes)
				assert.Equal(t, tt.failedIdx, *st.FailedIndexes)
			} else {
				assert.Nil(t, st.FailedIndexes)
			}
		})
	}
}

func TestPlanSkipsFailedIndexesAndCountsFailures(t *testing.T) {
	j := &batch.Job{ObjectMeta: meta.ObjectMeta{Name: "j", UID: "u"}, Spec: batch.JobSpec{CompletionMode: ptr(batch.IndexedCompletion),
		Completions: ptr(int32(3)), Parallelism: ptr(int32(3)), BackoffLimitPerIndex: ptr(int32(1))},
		Status: batch.JobStatus{FailedIndexes: ptr("0")}}
	batch.DefaultJob(j)
	prev := pod("p1", core.PodFailed, all(indexed("1"), func(p *core.Pod) {
		p.Annotations[batch.JobIndexFailureCountAnnotation] = "0"
		p.Annotations[batch.JobIndexIgnoredFailureCountAnnotation] = "2"
	}))
	running0 := pod("r0", core.PodRunning, indexed("0"))
	s := newState(j, []*core.Pod{prev, running0}, time.Now())
	create, remove := plan(j, s)
	assert.Equal(t, []int{1, 2}, create, "index 0 failed: no new pod")
	require.Len(t, remove, 1, "the active pod of a failed index goes")
	assert.Equal(t, "r0", remove[0].Name)
	np := NewPod(j, 1)
	setFailureCounts(j, np, s.lastFailed[1])
	assert.Equal(t, "1", np.Annotations[batch.JobIndexFailureCountAnnotation])
	assert.Equal(t, "2", np.Annotations[batch.JobIndexIgnoredFailureCountAnnotation])
	first := NewPod(j, 2)
	setFailureCounts(j, first, s.lastFailed[2])
	assert.Equal(t, "0", first.Annotations[batch.JobIndexFailureCountAnnotation])
	assert.NotContains(t, first.Annotations, batch.JobIndexIgnoredFailureCountAnnotation)
}
