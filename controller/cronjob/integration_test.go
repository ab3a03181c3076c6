package cronjob_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
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
	"github.com/orkit/orkit/controller/cronjob"
	"github.com/orkit/orkit/controller/job"
	"github.com/orkit/orkit/informer/workqueue"
	"github.com/orkit/orkit/internal/testnode"
)

const wait = 30 * time.Second

type env struct {
	c          *client.Client
	kubeconfig string
	clock      *workqueue.FakeClock
	rec        *record.Fake

	mu    sync.Mutex
	fates map[string]testnode.Fate // cronjob name (the job template's label "cj") or job name -> fate
}

func setup(t *testing.T) *env {
	cl := testnode.StartCluster(t)
	// The fake clock starts on a minute boundary ahead of real time, so
	// that creation timestamps are before every schedule time it reaches.
	start := time.Now().Truncate(time.Minute).Add(time.Minute + 10*time.Second)
	e := &env{c: cl.Client(t, cl.AdminKubeconfig), kubeconfig: cl.AdminKubeconfig, clock: workqueue.NewFakeClock(start), rec: &record.Fake{},
		fates: map[string]testnode.Fate{}}
	agent := testnode.RunAgent(t, e.c, testnode.Config{Nodes: 1, Bind: true})
	agent.SetFate(func(p *core.Pod) testnode.Fate {
		e.mu.Lock()
		defer e.mu.Unlock()
		if f, ok := e.fates[p.Labels["cj"]]; ok {
			return f
		}
		if f, ok := e.fates[p.Labels[batch.JobNameLabel]]; ok {
			return f
		}
		return testnode.Ready
	})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	jc, err := job.New(m, job.Config{Logger: testnode.QuietLogger(), Recorder: record.Discard{}})
	require.NoError(t, err)
	require.NoError(t, m.Add(jc))
	cc, err := cronjob.New(m, cronjob.Config{Logger: testnode.QuietLogger(), Clock: e.clock, Recorder: e.rec})
	require.NoError(t, err)
	require.NoError(t, m.Add(cc))
	tickClock(t, e.clock)
	testnode.RunManager(t, m)
	return e
}

func (e *env) setFate(name string, f testnode.Fate) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fates[name] = f
}

func newCronJob(name, schedule string, mod func(*batch.CronJobSpec)) *batch.CronJob {
	l := map[string]string{"cj": name}
	cj := &batch.CronJob{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batch.CronJobSpec{Schedule: schedule, JobTemplate: batch.JobTemplateSpec{Spec: batch.JobSpec{
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: l}, Spec: core.PodSpec{
				RestartPolicy: core.RestartPolicyNever, Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}}}}}
	if mod != nil {
		mod(&cj.Spec)
	}
	return cj
}

// jobsOf lists the Jobs cj controls, by name.
func (e *env) jobsOf(t *testing.T, cj string) []string {
	l, err := client.For[batch.Job](e.c, "default").List(context.Background(), client.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, j := range l.Items {
		if ref := meta.ControllerOf(&j.ObjectMeta); ref != nil && ref.Name == cj && j.DeletionTimestamp == nil {
			out = append(out, j.Name)
		}
	}
	slices.Sort(out)
	return out
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

// now returns the fake clock's current minute.
func (e *env) now() time.Time { return e.clock.Now().Truncate(time.Minute) }

// step moves the fake clock past the next minute boundary and returns
// that boundary.
func (e *env) step() time.Time {
	e.clock.Step(time.Minute)
	return e.clock.Now().Truncate(time.Minute)
}

// TestCronJobController runs the CronJob controller's scenarios against
// one control plane, node agent and Job controller, on a fake clock.
func TestCronJobController(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"runs and records success", testRunsAndRecordsSuccess},
		{"forbid", testForbid},
		{"replace", testReplace},
		{"suspend", testSuspend},
		{"too many missed", testTooManyMissed},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, e) })
	}
}

func testRunsAndRecordsSuccess(t *testing.T, e *env) {
	ctx := context.Background()
	cjs := client.For[batch.CronJob](e.c, "default")
	e.setFate("ok", testnode.Succeeded)
	_, err := cjs.Create(ctx, newCronJob("ok", "* * * * *", func(s *batch.CronJobSpec) { s.SuccessfulJobsHistoryLimit = i32(2) }))
	require.NoError(t, err)
	var ran []string
	at := e.now() // created before this minute began: it runs at once
	for i := range 3 {
		if i > 0 {
			at = e.step()
		}
		ran = append(ran, name("ok", at))
		var cj *batch.CronJob
		testnode.Eventually(t, wait, func() bool {
			cj, err = cjs.Get(ctx, "ok")
			return err == nil && cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Equal(at) &&
				len(cj.Status.Active) == 0 && cj.Status.LastSuccessfulTime != nil
		}, "run at %v completed: %v", at, lazy(func() string { return fmt.Sprintf("%+v jobs %v", cj, e.jobsOf(t, "ok")) }))
	}
	testnode.Eventually(t, wait, func() bool { return slices.Equal(e.jobsOf(t, "ok"), ran[1:]) },
		"history keeps the last 2 of %v, has %v", ran, e.jobsOf(t, "ok"))
	j, err := client.For[batch.Job](e.c, "default").Get(ctx, ran[2])
	require.NoError(t, err)
	assert.NotEmpty(t, j.Annotations[batch.CronJobScheduledTimestampAnnotation])
	assert.Contains(t, e.reasons("ok"), cronjob.ReasonSuccessfulCreate)
	assert.Contains(t, e.reasons("ok"), cronjob.ReasonSawCompletedJob)
	assert.Contains(t, e.reasons("ok"), cronjob.ReasonSuccessfulDelete)
	require.NoError(t, cjs.Delete(ctx, "ok", nil))
}

func testForbid(t *testing.T, e *env) {
	ctx := context.Background()
	cjs := client.For[batch.CronJob](e.c, "default")
	_, err := cjs.Create(ctx, newCronJob("forbid", "* * * * *", func(s *batch.CronJobSpec) { s.ConcurrencyPolicy = batch.ForbidConcurrent }))
	require.NoError(t, err)
	first := e.now()
	testnode.Eventually(t, wait, func() bool {
		cj, err := cjs.Get(ctx, "forbid")
		return err == nil && len(cj.Status.Active) == 1
	}, "one active job")
	e.step()
	testnode.Eventually(t, wait, func() bool { return slices.Contains(e.reasons("forbid"), cronjob.ReasonJobAlreadyActive) },
		"JobAlreadyActive")
	assert.Equal(t, []string{name("forbid", first)}, e.jobsOf(t, "forbid"))
	require.NoError(t, cjs.Delete(ctx, "forbid", nil))
}

func testReplace(t *testing.T, e *env) {
	ctx := context.Background()
	cjs := client.For[batch.CronJob](e.c, "default")
	_, err := cjs.Create(ctx, newCronJob("repl", "* * * * *", func(s *batch.CronJobSpec) { s.ConcurrencyPolicy = batch.ReplaceConcurrent }))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool { return len(e.jobsOf(t, "repl")) == 1 }, "first job")
	second := e.step()
	testnode.Eventually(t, wait, func() bool {
		cj, err := cjs.Get(ctx, "repl")
		return err == nil && len(cj.Status.Active) == 1 && cj.Status.Active[0].Name == name("repl", second) &&
			slices.Equal(e.jobsOf(t, "repl"), []string{name("repl", second)})
	}, "the second job replaced the first")
	require.NoError(t, cjs.Delete(ctx, "repl", nil))
}

func testSuspend(t *testing.T, e *env) {
	ctx := context.Background()
	cjs := client.For[batch.CronJob](e.c, "default")
	yes := true
	_, err := cjs.Create(ctx, newCronJob("sus", "* * * * *", func(s *batch.CronJobSpec) { s.Suspend = &yes }))
	require.NoError(t, err)
	e.step()
	e.step()
	_, err = cjs.Patch(ctx, "sus", client.MergePatchType, []byte(`{"spec":{"suspend":false}}`))
	require.NoError(t, err)
	// Unsuspended, the latest missed time runs.
	testnode.Eventually(t, wait, func() bool { return len(e.jobsOf(t, "sus")) == 1 }, "a job after resuming")
	require.NoError(t, cjs.Delete(ctx, "sus", nil))
}

func testTooManyMissed(t *testing.T, e *env) {
	ctx := context.Background()
	cjs := client.For[batch.CronJob](e.c, "default")
	_, err := cjs.Create(ctx, newCronJob("late", "* * * * *", nil))
	require.NoError(t, err)
	first := name("late", e.now())
	testnode.Eventually(t, wait, func() bool { return slices.Contains(e.jobsOf(t, "late"), first) }, "the first run")
	e.clock.Step(3 * time.Hour)
	latest := e.now()
	testnode.Eventually(t, wait, func() bool { return slices.Contains(e.jobsOf(t, "late"), name("late", latest)) }, "the latest run")
	assert.Equal(t, []string{first, name("late", latest)}, e.jobsOf(t, "late"), "only the latest of the missed times ran")
	assert.Contains(t, e.reasons("late"), cronjob.ReasonTooManyMissedTimes)
}

// lazy formats as what f returns when printed.
type lazy func() string

func (l lazy) String() string { return l() }

func i32(v int32) *int32 { return &v }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// name is the name of cj's Job for the minute at.
func name(cj string, at time.Time) string { return cj + "-" + itoa(at.Unix()/60) }

// tickClock moves the fake clock by 1ms every 5ms of real time until the
// test ends, so that rate-limited retries happen; a test of a minute of
// real time moves it 12s, never across a schedule time (the steps land
// 10s after one).
func tickClock(t *testing.T, c *workqueue.FakeClock) {
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
				c.Step(time.Millisecond)
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}
