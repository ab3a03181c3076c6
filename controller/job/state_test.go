package job

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestIndexSetString(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "0"},
		{[]int{0, 1}, "0,1"},
		{[]int{0, 1, 2}, "0-2"},
		{[]int{7, 1, 3, 4, 5}, "1,3-5,7"},
		{[]int{2, 4, 5, 9, 10, 11, 12}, "2,4,5,9-12"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			var s indexSet
			for _, i := range tt.in {
				s.add(i)
			}
			assert.Equal(t, tt.want, s.String())
			assert.Equal(t, len(tt.in), parseIndexes(tt.want, 100).len())
		})
	}
}

func TestParseIndexesBadInput(t *testing.T) {
	assert.Equal(t, indexSet{1: true, 2: true}, parseIndexes("x,1-2,-,5-y,9", 3))
	assert.Empty(t, parseIndexes("", 3))
}

func pod(name string, phase core.PodPhase, mod func(*core.Pod)) *core.Pod {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, UID: meta.UID(name), Finalizers: []string{batch.JobTrackingFinalizer}},
		Spec: core.PodSpec{NodeName: "n"}, Status: core.PodStatus{Phase: phase}}
	if mod != nil {
		mod(p)
	}
	return p
}

func terminating(p *core.Pod) {
	t := meta.Now()
	p.DeletionTimestamp = &t
}

func indexed(i string) func(*core.Pod) {
	return func(p *core.Pod) { p.Annotations = map[string]string{batch.JobCompletionIndexAnnotation: i} }
}

func TestPlan(t *testing.T) {
	mode := batch.IndexedCompletion
	tests := []struct {
		name       string
		spec       batch.JobSpec
		pods       []*core.Pod
		wantCreate []int
		wantDelete []string
	}{
		{"start", batch.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(5))}, nil, []int{0, 0}, nil},
		{"last completions", batch.JobSpec{Parallelism: ptr(int32(3)), Completions: ptr(int32(3))},
			[]*core.Pod{pod("a", core.PodSucceeded, nil), pod("b", core.PodSucceeded, nil), pod("c", core.PodRunning, nil)}, nil, nil},
		{"too many active", batch.JobSpec{Parallelism: ptr(int32(1)), Completions: ptr(int32(3))},
			[]*core.Pod{pod("a", core.PodRunning, nil), pod("b", core.PodPending, nil)}, nil, []string{"b"}},
		{"work queue after a success", batch.JobSpec{Parallelism: ptr(int32(3))},
			[]*core.Pod{pod("a", core.PodSucceeded, nil), pod("b", core.PodRunning, nil)}, nil, nil},
		{"work queue", batch.JobSpec{Parallelism: ptr(int32(3))}, []*core.Pod{pod("b", core.PodRunning, nil)}, []int{0, 0}, nil},
		{"terminating pod replaced at once", batch.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4))},
			[]*core.Pod{pod("a", core.PodRunning, terminating), pod("b", core.PodRunning, nil)}, []int{0}, nil},
		{"replacement waits for the failure", batch.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4)), PodReplacementPolicy: ptr(batch.Failed)},
			[]*core.Pod{pod("a", core.PodRunning, terminating), pod("b", core.PodRunning, nil)}, nil, nil},
		{"indexed fills the lowest gaps", batch.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4)), CompletionMode: &mode},
			[]*core.Pod{pod("a", core.PodSucceeded, indexed("0")), pod("b", core.PodRunning, indexed("2"))}, []int{1}, nil},
		{"indexed drops duplicates and bad indexes", batch.JobSpec{Parallelism: ptr(int32(3)), Completions: ptr(int32(3)), CompletionMode: &mode},
			[]*core.Pod{pod("a", core.PodRunning, indexed("0")), pod("b", core.PodRunning, indexed("0")),
				pod("c", core.PodRunning, indexed("7")), pod("d", core.PodRunning, nil)}, []int{1, 2}, []string{"b", "c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &batch.Job{ObjectMeta: meta.ObjectMeta{Name: "j", UID: "u"}, Spec: tt.spec}
			batch.DefaultJob(j)
			s := newState(j, tt.pods, time.Now())
			create, remove := plan(j, s)
			assert.Equal(t, tt.wantCreate, create)
			var names []string
			for _, p := range remove {
				names = append(names, p.Name)
			}
			assert.Equal(t, tt.wantDelete, names)
		})
	}
}

func TestOutcome(t *testing.T) {
	now := time.Now()
	start := meta.NewTime(now.Add(-time.Minute))
	tests := []struct {
		name   string
		spec   batch.JobSpec
		pods   []*core.Pod
		reason string // "" means not finished
	}{
		{"running", batch.JobSpec{}, []*core.Pod{pod("a", core.PodRunning, nil)}, ""},
		{"complete", batch.JobSpec{}, []*core.Pod{pod("a", core.PodSucceeded, nil)}, batch.JobReasonCompletionsReached},
		{"failures within limit", batch.JobSpec{BackoffLimit: ptr(int32(1))}, []*core.Pod{pod("a", core.PodFailed, nil)}, ""},
		{"failures past limit", batch.JobSpec{BackoffLimit: ptr(int32(1))},
			[]*core.Pod{pod("a", core.PodFailed, nil), pod("b", core.PodFailed, nil)}, batch.JobReasonBackoffLimitExceeded},
		{"deleted pod counts as failed", batch.JobSpec{BackoffLimit: ptr(int32(0))},
			[]*core.Pod{pod("a", core.PodRunning, func(p *core.Pod) { p.DeletionTimestamp = &start })}, batch.JobReasonBackoffLimitExceeded},
		{"restarts with OnFailure", batch.JobSpec{BackoffLimit: ptr(int32(2)), Template: core.PodTemplateSpec{Spec: core.PodSpec{RestartPolicy: core.RestartPolicyOnFailure}}},
			[]*core.Pod{pod("a", core.PodRunning, func(p *core.Pod) {
				p.Status.ContainerStatuses = []core.ContainerStatus{{Name: "c", RestartCount: 2}}
			})}, batch.JobReasonBackoffLimitExceeded},
		{"deadline", batch.JobSpec{ActiveDeadlineSeconds: ptr(int64(30))}, []*core.Pod{pod("a", core.PodRunning, nil)}, batch.JobReasonDeadlineExceeded},
		{"deadline not yet", batch.JobSpec{ActiveDeadlineSeconds: ptr(int64(300))}, []*core.Pod{pod("a", core.PodRunning, nil)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &batch.Job{ObjectMeta: meta.ObjectMeta{Name: "j", UID: "u"}, Spec: tt.spec,
				Status: batch.JobStatus{StartTime: &start}}
			batch.DefaultJob(j)
			s := newState(j, tt.pods, now)
			if tt.reason == "" {
				assert.Nil(t, s.finishing)
				return
			}
			if assert.NotNil(t, s.finishing) {
				assert.Equal(t, tt.reason, s.finishing.Reason)
			}
		})
	}
}

func TestTrackingFoldsUncounted(t *testing.T) {
	j := &batch.Job{ObjectMeta: meta.ObjectMeta{Name: "j", UID: "u"}, Status: batch.JobStatus{Succeeded: 1,
		UncountedTerminatedPods: &batch.UncountedTerminatedPods{Succeeded: []meta.UID{"a", "gone"}}}}
	batch.DefaultJob(j)
	a := pod("a", core.PodSucceeded, nil)
	b := pod("b", core.PodSucceeded, nil)
	c := pod("c", core.PodSucceeded, func(p *core.Pod) { p.Finalizers = nil })
	s := newState(j, []*core.Pod{a, b, c}, time.Now())
	assert.Equal(t, int32(2), s.countedSucceeded, "gone was counted, c was counted before")
	assert.ElementsMatch(t, []meta.UID{"a", "b"}, s.uncounted.Succeeded)
	assert.Len(t, s.toUnfinalize, 2)
	assert.False(t, s.final)
}

// FuzzParseIndexes checks that any completedIndexes string parses without
// panicking into indexes below the bound, and that formatting them and
// parsing again gives the same set.
func FuzzParseIndexes(f *testing.F) {
	for _, s := range []string{"", "0", "1,3-5,7", "0-2", "5-1", "-3", "9-", ",,", "1-2-3", "99999999999999999999"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 1000
		set := parseIndexes(s, n)
		for i := range set {
			if i < 0 || i >= n {
				t.Fatalf("%q: index %d outside [0, %d)", s, i, n)
			}
		}
		again := parseIndexes(set.String(), n)
		if again.String() != set.String() {
			t.Fatalf("%q: %q reparsed as %q", s, set.String(), again.String())
		}
	})
}
