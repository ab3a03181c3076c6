package job_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/batch"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/client/record"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/job"
	"github.com/orkit/orkit/informer/workqueue"
	"github.com/orkit/orkit/internal/testnode"
)

const wait = 30 * time.Second

// env is one control plane, node agent and Job controller shared by the
// subtests; each Job picks its pods' fate by name.
type env struct {
	c     *client.Client
	clock *workqueue.FakeClock
	rec   *record.Fake

	mu    sync.Mutex
	fates map[string]testnode.Fate // job name -> fate of its pods
	// fateFns decide per pod (by its index, say), before fates.
	fateFns map[string]testnode.FateFunc
}

func setup(t *testing.T) *env {
	cl := testnode.StartCluster(t)
	e := &env{c: cl.Client(t, cl.AdminKubeconfig), clock: workqueue.NewFakeClock(time.Now()),
		rec: &record.Fake{}, fates: map[string]testnode.Fate{}, fateFns: map[string]testnode.FateFunc{}}
	agent := testnode.RunAgent(t, e.c, testnode.Config{Nodes: 2, Bind: true})
	agent.SetFate(func(p *core.Pod) testnode.Fate {
		e.mu.Lock()
		defer e.mu.Unlock()
		if f, ok := e.fateFns[p.Labels[batch.JobNameLabel]]; ok {
			return f(p)
		}
		if f, ok := e.fates[p.Labels[batch.JobNameLabel]]; ok {
			return f
		}
		return testnode.Ready
	})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	c, err := job.New(m, job.Config{Logger: testnode.QuietLogger(), Clock: e.clock, Recorder: e.rec,
		Backoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, m.Add(c))
	runClock(t, e.clock)
	testnode.RunManager(t, m)
	return e
}

// runClock moves the fake clock along with real time (so that retries
// and short backoffs happen), until the test ends; tests jump it further
// with Step.
func runClock(t *testing.T, c *workqueue.FakeClock) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				c.Step(5 * time.Millisecond)
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

func (e *env) setFate(name string, f testnode.Fate) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fates[name] = f
}

func newJob(name string, restart core.RestartPolicy, mod func(*batch.JobSpec)) *batch.Job {
	j := &batch.Job{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batch.JobSpec{Template: core.PodTemplateSpec{Spec: core.PodSpec{RestartPolicy: restart,
			Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}}}
	if mod != nil {
		mod(&j.Spec)
	}
	return j
}

func i32(v int32) *int32 { return &v }

func (e *env) job(t *testing.T, name string) *batch.Job {
	j, err := client.For[batch.Job](e.c, "default").Get(context.Background(), name)
	require.NoError(t, err)
	return j
}

func condition(j *batch.Job, ct batch.JobConditionType) *batch.JobCondition {
	c := batch.FindCondition(&j.Status, ct)
	if c == nil || c.Status != meta.ConditionTrue {
		return nil
	}
	return c
}

func (e *env) waitCondition(t *testing.T, name string, ct batch.JobConditionType) *batch.Job {
	t.Helper()
	var j *batch.Job
	testnode.Eventually(t, wait, func() bool {
		got, err := client.For[batch.Job](e.c, "default").Get(context.Background(), name)
		j = got
		return err == nil && condition(got, ct) != nil
	}, "job %s condition %s", name, ct)
	return j
}

func (e *env) pods(t *testing.T, name string) []core.Pod {
	l, err := client.For[core.Pod](e.c, "default").List(context.Background(), client.ListOptions{LabelSelector: batch.JobNameLabel + "=" + name})
	require.NoError(t, err)
	return l.Items
}

func (e *env) reasons(name string) []string {
	var out []string
	for _, ev := range e.rec.Events() {
		if ev.Name == name {
			out = append(out, ev.Reason)
		}
	}
	return out
}

// TestJobController runs the Job controller's scenarios against one
// control plane and node agent.
func TestJobController(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"completes", testCompletes},
		{"backoff limit", testBackoffLimit},
		{"restarts count with OnFailure", testOnFailureRestarts},
		{"deadline", testDeadline},
		{"indexed", testIndexed},
		{"suspend and resume", testSuspendAndResume},
		{"adopts a matching orphan", testAdoption},
		{"ttl after finished", testTTLAfterFinished},
		{"backoff limit per index", testBackoffLimitPerIndex},
		{"max failed indexes", testMaxFailedIndexes},
		{"pod failure policy FailJob", testFailJob},
		{"pod failure policy FailIndex", testFailIndex},
		{"success policy", testSuccessPolicy},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, e) })
	}
}

func testCompletes(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	e.setFate("ok", testnode.Succeeded)
	_, err := jobs.Create(ctx, newJob("ok", core.RestartPolicyNever, func(s *batch.JobSpec) {
		s.Completions, s.Parallelism = i32(3), i32(2)
	}))
	require.NoError(t, err)
	j := e.waitCondition(t, "ok", batch.JobComplete)
	assert.Equal(t, int32(3), j.Status.Succeeded)
	assert.Equal(t, int32(0), j.Status.Active)
	assert.NotNil(t, j.Status.CompletionTime)
	assert.NotNil(t, condition(j, batch.JobSuccessCriteriaMet))
	require.NotNil(t, j.Status.UncountedTerminatedPods)
	assert.Empty(t, j.Status.UncountedTerminatedPods.Succeeded)
	pods := e.pods(t, "ok")
	assert.Len(t, pods, 3)
	for _, p := range pods {
		assert.False(t, p.HasFinalizer(batch.JobTrackingFinalizer), "finalizer removed from %s", p.Name)
		ref := meta.ControllerOf(&p.ObjectMeta)
		require.NotNil(t, ref)
		assert.Equal(t, "Job", ref.Kind)
	}
	testnode.Eventually(t, wait, func() bool { return slices.Contains(e.reasons("ok"), job.ReasonCompleted) }, "Completed event")
	assert.Equal(t, 3, strings.Count(strings.Join(e.reasons("ok"), " "), job.ReasonSuccessfulCreate))
}

func testBackoffLimit(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	e.setFate("bad", testnode.Failed)
	_, err := jobs.Create(ctx, newJob("bad", core.RestartPolicyNever, func(s *batch.JobSpec) { s.BackoffLimit = i32(1) }))
	require.NoError(t, err)
	j := e.waitCondition(t, "bad", batch.JobFailed)
	c := condition(j, batch.JobFailed)
	assert.Equal(t, batch.JobReasonBackoffLimitExceeded, c.Reason)
	assert.Equal(t, "Job has reached the specified backoff limit", c.Message)
	assert.Equal(t, int32(2), j.Status.Failed)
	assert.Len(t, e.pods(t, "bad"), 2)
	testnode.Eventually(t, wait, func() bool {
		return slices.Contains(e.reasons("bad"), job.ReasonBackoffLimitExceeded)
	}, "BackoffLimitExceeded event")
}

func testOnFailureRestarts(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	e.setFate("crash", testnode.Failed)
	_, err := jobs.Create(ctx, newJob("crash", core.RestartPolicyOnFailure, func(s *batch.JobSpec) { s.BackoffLimit = i32(0) }))
	require.NoError(t, err)
	j := e.waitCondition(t, "crash", batch.JobFailed)
	assert.Equal(t, batch.JobReasonBackoffLimitExceeded, condition(j, batch.JobFailed).Reason)
	assert.Equal(t, int32(1), j.Status.Failed, "the crash-looping pod was deleted and counted")
}

func testDeadline(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	_, err := jobs.Create(ctx, newJob("slow", core.RestartPolicyNever, func(s *batch.JobSpec) {
		s.ActiveDeadlineSeconds = new(int64)
		*s.ActiveDeadlineSeconds = 60
		s.Parallelism, s.Completions = i32(2), i32(4)
	}))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		j := e.job(t, "slow")
		return j.Status.Active == 2 && j.Status.Ready != nil && *j.Status.Ready == 2
	}, "two ready pods")
	e.clock.Step(61 * time.Second)
	j := e.waitCondition(t, "slow", batch.JobFailed)
	c := condition(j, batch.JobFailed)
	assert.Equal(t, batch.JobReasonDeadlineExceeded, c.Reason)
	assert.Equal(t, "Job was active longer than specified deadline", c.Message)
	assert.Equal(t, int32(0), j.Status.Active)
	assert.Equal(t, int32(2), j.Status.Failed)
	testnode.Eventually(t, wait, func() bool { return len(e.pods(t, "slow")) == 0 }, "active pods deleted")
	testnode.Eventually(t, wait, func() bool { return slices.Contains(e.reasons("slow"), job.ReasonDeadlineExceeded) },
		"DeadlineExceeded event")
}

func testIndexed(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	e.setFate("idx", testnode.Succeeded)
	mode := batch.IndexedCompletion
	_, err := jobs.Create(ctx, newJob("idx", core.RestartPolicyNever, func(s *batch.JobSpec) {
		s.Completions, s.Parallelism, s.CompletionMode = i32(3), i32(3), &mode
	}))
	require.NoError(t, err)
	j := e.waitCondition(t, "idx", batch.JobComplete)
	assert.Equal(t, "0-2", j.Status.CompletedIndexes)
	seen := map[string]bool{}
	for _, p := range e.pods(t, "idx") {
		idx := p.Annotations[batch.JobCompletionIndexAnnotation]
		seen[idx] = true
		assert.Equal(t, idx, p.Labels[batch.JobCompletionIndexAnnotation])
		assert.Equal(t, "idx-"+idx, p.Spec.Hostname)
		assert.True(t, strings.HasPrefix(p.Name, "idx-"+idx+"-"), p.Name)
		env := p.Spec.Containers[0].Env
		require.Len(t, env, 1)
		assert.Equal(t, batch.JobCompletionIndexEnv, env[0].Name)
		assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", env[0].ValueFrom.FieldRef.FieldPath)
	}
	assert.Equal(t, map[string]bool{"0": true, "1": true, "2": true}, seen)
}

func testSuspendAndResume(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	e.setFate("sus", testnode.Succeeded)
	yes := true
	_, err := jobs.Create(ctx, newJob("sus", core.RestartPolicyNever, func(s *batch.JobSpec) { s.Suspend = &yes }))
	require.NoError(t, err)
	j := e.waitCondition(t, "sus", batch.JobSuspended)
	assert.Nil(t, j.Status.StartTime)
	assert.Empty(t, e.pods(t, "sus"))
	_, err = jobs.Patch(ctx, "sus", client.MergePatchType, []byte(`{"spec":{"suspend":false}}`))
	require.NoError(t, err)
	j = e.waitCondition(t, "sus", batch.JobComplete)
	c := batch.FindCondition(&j.Status, batch.JobSuspended)
	require.NotNil(t, c)
	assert.Equal(t, meta.ConditionFalse, c.Status)
	assert.Equal(t, batch.JobReasonResumed, c.Reason)
	assert.Contains(t, e.reasons("sus"), job.ReasonSuspended)
	assert.Contains(t, e.reasons("sus"), job.ReasonResumed)
}

func testAdoption(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	l := map[string]string{batch.JobNameLabel: "adopt", "app": "adopt"}
	orphan := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "orphan", Namespace: "default", Labels: l},
		Spec: core.PodSpec{RestartPolicy: core.RestartPolicyNever, Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}
	e.setFate("adopt", testnode.Ready) // running until adopted
	_, err := client.For[core.Pod](e.c, "default").Create(ctx, orphan)
	require.NoError(t, err)
	yes := true
	_, err = jobs.Create(ctx, newJob("adopt", core.RestartPolicyNever, func(s *batch.JobSpec) {
		s.ManualSelector = &yes
		s.Selector = &meta.LabelSelector{MatchLabels: map[string]string{"app": "adopt"}}
		s.Template.Labels = l
	}))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		p, err := client.For[core.Pod](e.c, "default").Get(ctx, "orphan")
		ref := meta.ControllerOf(&p.ObjectMeta)
		return err == nil && ref != nil && ref.Kind == "Job" && p.HasFinalizer(batch.JobTrackingFinalizer)
	}, "orphan adopted with the tracking finalizer")
	e.setFate("adopt", testnode.Succeeded)
	// A change of the pod makes the agent look at it again.
	_, err = client.For[core.Pod](e.c, "default").Patch(ctx, "orphan", client.MergePatchType, []byte(`{"metadata":{"annotations":{"poke":"1"}}}`))
	require.NoError(t, err)
	j := e.waitCondition(t, "adopt", batch.JobComplete)
	assert.Equal(t, int32(1), j.Status.Succeeded)
	pods := e.pods(t, "adopt")
	require.Len(t, pods, 1, "no pod created besides the adopted one")
	assert.Equal(t, "orphan", pods[0].Name)
}

func testTTLAfterFinished(t *testing.T, e *env) {
	ctx := context.Background()
	jobs := client.For[batch.Job](e.c, "default")
	e.setFate("ttl", testnode.Succeeded)
	_, err := jobs.Create(ctx, newJob("ttl", core.RestartPolicyNever, func(s *batch.JobSpec) { s.TTLSecondsAfterFinished = i32(30) }))
	require.NoError(t, err)
	e.waitCondition(t, "ttl", batch.JobComplete)
	e.clock.Step(31 * time.Second)
	testnode.Eventually(t, wait, func() bool {
		_, err := jobs.Get(ctx, "ttl")
		return err != nil && strings.Contains(err.Error(), "not found")
	}, "expired job deleted")
}

// oddFails fails the pods of odd indexes and succeeds the others.
func oddFails(p *core.Pod) testnode.Fate {
	if i := p.Annotations[batch.JobCompletionIndexAnnotation]; i != "" && (i[len(i)-1]-'0')%2 == 1 {
		return testnode.Failed
	}
	return testnode.Succeeded
}

func (e *env) setFateFunc(name string, f testnode.FateFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fateFns[name] = f
}

func indexedSpec(completions, parallelism int32) func(*batch.JobSpec) {
	return func(s *batch.JobSpec) {
		mode := batch.IndexedCompletion
		s.Completions, s.Parallelism, s.CompletionMode = i32(completions), i32(parallelism), &mode
	}
}

func testBackoffLimitPerIndex(t *testing.T, e *env) {
	e.setFateFunc("perindex", oddFails)
	_, err := client.For[batch.Job](e.c, "default").Create(context.Background(), newJob("perindex", core.RestartPolicyNever, func(s *batch.JobSpec) {
		indexedSpec(4, 2)(s)
		s.BackoffLimitPerIndex = i32(1)
	}))
	require.NoError(t, err)
	j := e.waitCondition(t, "perindex", batch.JobFailed)
	c := condition(j, batch.JobFailed)
	assert.Equal(t, batch.JobReasonFailedIndexes, c.Reason)
	assert.Equal(t, "Job has failed indexes", c.Message)
	assert.NotNil(t, condition(j, batch.JobFailureTarget))
	require.NotNil(t, j.Status.FailedIndexes)
	assert.Equal(t, "1,3", *j.Status.FailedIndexes)
	assert.Equal(t, "0,2", j.Status.CompletedIndexes)
	assert.Equal(t, int32(4), j.Status.Failed)
	assert.Equal(t, int32(2), j.Status.Succeeded)
	assert.Equal(t, int32(2147483647), *j.Spec.BackoffLimit)
	counts := map[string][]string{}
	for _, p := range e.pods(t, "perindex") {
		i := p.Annotations[batch.JobCompletionIndexAnnotation]
		counts[i] = append(counts[i], p.Annotations[batch.JobIndexFailureCountAnnotation])
		assert.False(t, p.HasFinalizer(batch.JobTrackingFinalizer), "finalizer removed from %s", p.Name)
	}
	for _, i := range []string{"1", "3"} {
		slices.Sort(counts[i])
		assert.Equal(t, []string{"0", "1"}, counts[i], "index %s retried once", i)
	}
	assert.Equal(t, []string{"0"}, counts["0"])
}

func testMaxFailedIndexes(t *testing.T, e *env) {
	e.setFate("maxfail", testnode.Failed)
	_, err := client.For[batch.Job](e.c, "default").Create(context.Background(), newJob("maxfail", core.RestartPolicyNever, func(s *batch.JobSpec) {
		indexedSpec(4, 1)(s)
		s.BackoffLimitPerIndex, s.MaxFailedIndexes = i32(0), i32(0)
	}))
	require.NoError(t, err)
	j := e.waitCondition(t, "maxfail", batch.JobFailed)
	assert.Equal(t, batch.JobReasonMaxFailedIndexesExceeded, condition(j, batch.JobFailed).Reason)
	require.NotNil(t, j.Status.FailedIndexes)
	assert.Equal(t, "0", *j.Status.FailedIndexes)
	assert.Equal(t, int32(1), j.Status.Failed)
	assert.Len(t, e.pods(t, "maxfail"), 1)
}

func testFailJob(t *testing.T, e *env) {
	e.setFate("failjob", testnode.Failed)
	_, err := client.For[batch.Job](e.c, "default").Create(context.Background(), newJob("failjob", core.RestartPolicyNever, func(s *batch.JobSpec) {
		s.Completions, s.Parallelism = i32(4), i32(2)
		s.PodFailurePolicy = &batch.PodFailurePolicy{Rules: []batch.PodFailurePolicyRule{{Action: batch.PodFailurePolicyActionFailJob,
			OnExitCodes: &batch.PodFailurePolicyOnExitCodesRequirement{Operator: batch.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1}}}}}
	}))
	require.NoError(t, err)
	j := e.waitCondition(t, "failjob", batch.JobFailed)
	c := condition(j, batch.JobFailed)
	assert.Equal(t, batch.JobReasonPodFailurePolicy, c.Reason)
	assert.Contains(t, c.Message, "failed with exit code 1 matching FailJob rule at index 0")
	assert.Equal(t, batch.Failed, *j.Spec.PodReplacementPolicy, "defaulted with a pod failure policy")
	assert.Equal(t, int32(0), j.Status.Active)
	assert.Equal(t, int32(0), *j.Status.Terminating)
}

func testFailIndex(t *testing.T, e *env) {
	e.setFateFunc("failindex", oddFails)
	_, err := client.For[batch.Job](e.c, "default").Create(context.Background(), newJob("failindex", core.RestartPolicyNever, func(s *batch.JobSpec) {
		indexedSpec(2, 2)(s)
		s.BackoffLimitPerIndex = i32(1)
		s.PodFailurePolicy = &batch.PodFailurePolicy{Rules: []batch.PodFailurePolicyRule{{Action: batch.PodFailurePolicyActionFailIndex,
			OnExitCodes: &batch.PodFailurePolicyOnExitCodesRequirement{Operator: batch.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1}}}}}
	}))
	require.NoError(t, err)
	j := e.waitCondition(t, "failindex", batch.JobFailed)
	assert.Equal(t, batch.JobReasonFailedIndexes, condition(j, batch.JobFailed).Reason)
	require.NotNil(t, j.Status.FailedIndexes)
	assert.Equal(t, "1", *j.Status.FailedIndexes)
	assert.Equal(t, "0", j.Status.CompletedIndexes)
	assert.Equal(t, int32(1), j.Status.Failed, "the index was not retried")
	assert.Equal(t, int32(1), j.Status.Succeeded)
}

func testSuccessPolicy(t *testing.T, e *env) {
	e.setFateFunc("succpol", func(p *core.Pod) testnode.Fate {
		if p.Annotations[batch.JobCompletionIndexAnnotation] == "0" {
			return testnode.Succeeded
		}
		return testnode.Ready
	})
	_, err := client.For[batch.Job](e.c, "default").Create(context.Background(), newJob("succpol", core.RestartPolicyNever, func(s *batch.JobSpec) {
		indexedSpec(5, 2)(s)
		s.SuccessPolicy = &batch.SuccessPolicy{Rules: []batch.SuccessPolicyRule{{SucceededIndexes: ptr("0")}}}
	}))
	require.NoError(t, err)
	j := e.waitCondition(t, "succpol", batch.JobComplete)
	c := condition(j, batch.JobComplete)
	assert.Equal(t, batch.JobReasonSuccessPolicy, c.Reason)
	assert.Equal(t, "Matched rules at index 0", c.Message)
	sc := condition(j, batch.JobSuccessCriteriaMet)
	require.NotNil(t, sc)
	assert.Equal(t, batch.JobReasonSuccessPolicy, sc.Reason)
	assert.Equal(t, "0", j.Status.CompletedIndexes)
	assert.Equal(t, int32(0), j.Status.Active)
	assert.Equal(t, int32(0), *j.Status.Ready)
	assert.Equal(t, int32(0), *j.Status.Terminating)
}

func ptr[T any](v T) *T { return &v }
