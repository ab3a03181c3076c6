package scheduler_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheduling"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

func withPriority(p *core.Pod, v int32) *core.Pod {
	p.Spec.Priority = &v
	return p
}

// withClass gives p the PriorityClass "prio-<v>" of value v, creating it
// when missing: through the API server a pod's priority comes from its
// class (the Priority admission plugin refuses a bare spec.priority).
func withClass(t *testing.T, c *simcluster.Cluster, p *core.Pod, v int32) *core.Pod {
	t.Helper()
	name := "prio-" + strconv.Itoa(int(v))
	_, err := client.For[scheduling.PriorityClass](c.Admin, "").Create(context.Background(), &scheduling.PriorityClass{
		ObjectMeta: meta.ObjectMeta{Name: name}, Value: v})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	p.Spec.PriorityClassName = name
	return p
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func getPod(t *testing.T, c *client.Client, name string) (*core.Pod, error) {
	t.Helper()
	return client.For[core.Pod](c, "default").Get(context.Background(), name)
}

// TestIntegrationPreemption fills a node with low-priority pods and checks
// that a high-priority pod evicts exactly one of them, is nominated, bound,
// and that Events tell the story.
func TestIntegrationPreemption(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("only", "z", "1", "2Gi")}, 1))
	s := startScheduler(t, c, scheduler.Config{})
	low := []*core.Pod{withClass(t, c, simcluster.Pod("low-a", "500m", ""), 0), withClass(t, c, simcluster.Pod("low-b", "500m", ""), 10)}
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", low, 2))
	waitBound(t, c.Admin, 2, 20*time.Second)

	high := withClass(t, c, simcluster.Pod("high", "500m", ""), 1000)
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{high}, 1))
	waitFor(t, 20*time.Second, "high bound", func() bool {
		p, err := getPod(t, c.Admin, "high")
		return err == nil && p.Spec.NodeName == "only"
	})
	_, errA := getPod(t, c.Admin, "low-a")
	_, errB := getPod(t, c.Admin, "low-b")
	assert.Error(t, errA, "the lowest-priority pod is the victim")
	assert.NoError(t, errB, "one victim is enough")
	p, err := getPod(t, c.Admin, "high")
	require.NoError(t, err)
	assert.Equal(t, "only", p.Status.NominatedNodeName)
	assert.GreaterOrEqual(t, s.Stats().Preemptions, int64(1))
	// Events are written asynchronously: wait for all three.
	eventReasons(t, c.Admin, map[string][]string{"high": {"FailedScheduling", "Scheduled"}, "low-a": {"Preempted"}})
}

// eventReasons polls the default namespace's Events until every object in
// want has Events with each of the reasons listed, failing the test after
// 10 s.
func eventReasons(t *testing.T, c *client.Client, want map[string][]string) {
	t.Helper()
	waitFor(t, 10*time.Second, fmt.Sprintf("events %v", want), func() bool {
		evs, err := client.For[core.Event](c, "default").List(context.Background(), client.ListOptions{})
		require.NoError(t, err)
		out := map[string][]string{}
		for _, e := range evs.Items {
			out[e.InvolvedObject.Name] = append(out[e.InvolvedObject.Name], e.Reason)
		}
		for obj, reasons := range want {
			for _, r := range reasons {
				if !slices.Contains(out[obj], r) {
					return false
				}
			}
		}
		return true
	})
}

// TestIntegrationUnschedulable checks the FailedScheduling summary, the
// PodScheduled=False condition, and that a parked pod is scheduled once a
// node that fits appears.
func TestIntegrationUnschedulable(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	tainted := simcluster.Node("tainted", "z", "4", "4Gi")
	tainted.Spec.Taints = []core.Taint{{Key: "k", Value: "v", Effect: core.TaintEffectNoSchedule}}
	nodes := []*core.Node{simcluster.Node("small-1", "z", "1", "1Gi"), simcluster.Node("small-2", "z", "1", "1Gi"), tainted}
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, nodes, 2))
	s := startScheduler(t, c, scheduler.Config{DisablePreemption: true})
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{simcluster.Pod("big", "2", "")}, 1))
	var p *core.Pod
	waitFor(t, 20*time.Second, "PodScheduled=False", func() bool {
		var err error
		p, err = getPod(t, c.Admin, "big")
		require.NoError(t, err)
		_, cond := core.GetPodCondition(&p.Status, core.PodScheduled)
		return cond != nil && cond.Status == meta.ConditionFalse
	})
	_, cond := core.GetPodCondition(&p.Status, core.PodScheduled)
	assert.Equal(t, core.PodReasonUnschedulable, cond.Reason)
	// Parked, not retried in a loop: nothing in the active or backoff queue.
	waitFor(t, 10*time.Second, "pod parked", func() bool {
		a, b, u := s.Queue().Len()
		return a == 0 && b == 0 && u == 1
	})
	attempts := s.Stats().Attempts
	assert.Equal(t, "0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 Insufficient cpu.", cond.Message)

	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("big-node", "z", "4", "4Gi")}, 1))
	waitFor(t, 20*time.Second, "big bound after a node was added", func() bool {
		p, err := getPod(t, c.Admin, "big")
		return err == nil && p.Spec.NodeName == "big-node"
	})
	assert.LessOrEqual(t, s.Stats().Attempts, attempts+3, "node events woke it, not a loop")
}

// TestIntegrationPriorityClass resolves priorityClassName through the
// PriorityClass informer (the scheduler runs with admin rights here,
// since its bootstrap role does not read priority classes).
func TestIntegrationPriorityClass(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	_, err := client.For[scheduling.PriorityClass](c.Admin, "").Create(ctx, &scheduling.PriorityClass{
		ObjectMeta: meta.ObjectMeta{Name: "urgent"}, Value: 5000})
	require.NoError(t, err)
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("only", "z", "1", "2Gi")}, 1))
	cfg := scheduler.Config{PriorityClasses: true, Client: c.Admin, Logger: quiet()}
	s, err := scheduler.New(cfg)
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{simcluster.Pod("filler", "1", "")}, 1))
	waitBound(t, c.Admin, 1, 20*time.Second)
	urgent := simcluster.Pod("urgent", "1", "")
	urgent.Spec.PriorityClassName = "urgent"
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{urgent}, 1))
	waitFor(t, 20*time.Second, "urgent preempts filler", func() bool {
		p, err := getPod(t, c.Admin, "urgent")
		return err == nil && p.Spec.NodeName == "only"
	})
}

// rackOnly is a custom predicate written outside the scheduler package:
// it admits only nodes labelled rack=<something>.
type rackOnly struct{}

func (rackOnly) Name() string { return "RackOnly" }

func (rackOnly) Filter(_ context.Context, _ *framework.CycleState, _ *core.Pod, n *framework.NodeInfo) *framework.Status {
	if _, ok := n.Node().Labels["rack"]; !ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had no rack")
	}
	return nil
}

// highRack is a custom priority: the higher the rack number, the better.
type highRack struct{}

func (highRack) Name() string { return "HighRack" }

func (highRack) Score(_ context.Context, _ *framework.CycleState, _ *core.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	v, _ := strconv.Atoi(n.Node().Labels["rack"])
	return int64(min(v, 100)), nil
}

// TestIntegrationCustomPlugins plugs a custom predicate and priority into
// a second profile through the public API and checks pods naming that
// scheduler land where they say, while default pods are unaffected.
func TestIntegrationCustomPlugins(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	var nodes []*core.Node
	for i, rack := range []string{"", "3", "7", ""} {
		n := simcluster.Node("n"+strconv.Itoa(i), "z", "4", "4Gi")
		if rack != "" {
			n.Labels["rack"] = rack
		}
		nodes = append(nodes, n)
	}
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, nodes, 2))
	custom := plugins.DefaultProfile("rack-scheduler")
	custom.Predicates = append(custom.Predicates, rackOnly{})
	custom.Priorities = append(custom.Priorities, framework.WeightedPriority{Priority: highRack{}, Weight: 100})
	startScheduler(t, c, scheduler.Config{Profiles: []framework.Profile{plugins.DefaultProfile(""), custom}})
	var pods []*core.Pod
	for i := range 6 {
		p := simcluster.Pod("rack-"+strconv.Itoa(i), "100m", "")
		p.Spec.SchedulerName = "rack-scheduler"
		pods = append(pods, p)
	}
	pods = append(pods, simcluster.Pod("plain", "100m", ""))
	other := simcluster.Pod("other-scheduler", "100m", "")
	other.Spec.SchedulerName = "someone-else"
	pods = append(pods, other)
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", pods, 4))
	bound := waitBound(t, c.Admin, 7, 20*time.Second)
	for i := range 6 {
		assert.Equal(t, "n2", bound["rack-"+strconv.Itoa(i)].Spec.NodeName, "rack 7 wins")
	}
	assert.Contains(t, bound, "plain")
	p, err := getPod(t, c.Admin, "other-scheduler")
	require.NoError(t, err)
	assert.Empty(t, p.Spec.NodeName, "pods of another scheduler are left alone")
}

// TestIntegrationBoundPodsCount: pods bound without the scheduler count
// against their node; when one finishes (phase Succeeded) its room is
// free again and the parked pod is placed.
func TestIntegrationBoundPodsCount(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("n", "z", "1", "1Gi")}, 1))
	s := startScheduler(t, c, scheduler.Config{})
	direct := simcluster.Pod("direct", "1", "")
	direct.Spec.NodeName = "n"
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{direct}, 1))
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{simcluster.Pod("waiting", "500m", "")}, 1))
	waitFor(t, 10*time.Second, "waiting parked", func() bool {
		_, _, u := s.Queue().Len()
		return u == 1
	})
	p, err := getPod(t, c.Admin, "direct")
	require.NoError(t, err)
	p.Status.Phase = core.PodSucceeded
	_, err = client.For[core.Pod](c.Admin, "default").UpdateStatus(ctx, p)
	require.NoError(t, err)
	waitFor(t, 10*time.Second, "waiting bound once direct finished", func() bool {
		w, err := getPod(t, c.Admin, "waiting")
		return err == nil && w.Spec.NodeName == "n"
	})
}

// TestIntegrationPreemptionWaitsForVictims: victims with a grace period
// stay terminating (no kubelet here); a retry of the preemptor must not
// evict more pods meanwhile, and once the victim is gone it is bound.
func TestIntegrationPreemptionWaitsForVictims(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("only", "z", "1", "2Gi")}, 1))
	startScheduler(t, c, scheduler.Config{})
	grace := int64(30)
	lowA, lowB := withClass(t, c, simcluster.Pod("low-a", "500m", ""), 0), withClass(t, c, simcluster.Pod("low-b", "500m", ""), 1)
	lowA.Spec.TerminationGracePeriodSeconds, lowB.Spec.TerminationGracePeriodSeconds = &grace, &grace
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{lowA, lowB}, 2))
	waitBound(t, c.Admin, 2, 20*time.Second)
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{withClass(t, c, simcluster.Pod("high", "500m", ""), 100)}, 1))
	waitFor(t, 20*time.Second, "low-a terminating", func() bool {
		p, err := getPod(t, c.Admin, "low-a")
		return err == nil && p.DeletionTimestamp != nil
	})
	// Wake the preemptor with an unrelated node; it retries and must wait.
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("tiny", "z", "100m", "1Gi")}, 1))
	waitFor(t, 20*time.Second, "high retried", func() bool {
		evs, err := client.For[core.Event](c.Admin, "default").List(ctx, client.ListOptions{})
		require.NoError(t, err)
		n := 0
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == "high" && e.Reason == "FailedScheduling" {
				n++
			}
		}
		return n >= 2
	})
	b, err := getPod(t, c.Admin, "low-b")
	require.NoError(t, err)
	assert.Nil(t, b.DeletionTimestamp, "no second victim while the first is terminating")
	zero := int64(0)
	require.NoError(t, client.For[core.Pod](c.Admin, "default").Delete(ctx, "low-a", &meta.DeleteOptions{GracePeriodSeconds: &zero}))
	waitFor(t, 20*time.Second, "high bound", func() bool {
		p, err := getPod(t, c.Admin, "high")
		return err == nil && p.Spec.NodeName == "only"
	})
}

// TestIntegrationAffinityNamespaceSelector: a pod's required anti-affinity
// against app=db pods in namespaces labelled env=prod keeps it off the
// node where such a pod runs, through the scheduler's namespace informer.
func TestIntegrationAffinityNamespaceSelector(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{
		simcluster.Node("n1", "z", "4", "8Gi"), simcluster.Node("n2", "z", "4", "8Gi")}, 2))
	_, err := client.For[core.Namespace](c.Admin, "").Create(ctx, &core.Namespace{
		ObjectMeta: meta.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"}}})
	require.NoError(t, err)
	db := simcluster.Pod("db", "100m", "")
	db.Namespace, db.Labels, db.Spec.NodeName = "prod", map[string]string{"app": "db"}, "n1"
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "prod", []*core.Pod{db}, 1))
	startScheduler(t, c, scheduler.Config{})

	web := simcluster.Pod("web", "100m", "")
	web.Spec.Affinity = &core.Affinity{PodAntiAffinity: &core.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []core.PodAffinityTerm{{TopologyKey: core.LabelHostname,
			LabelSelector:     &meta.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			NamespaceSelector: &meta.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}}}
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{web}, 1))
	bound := waitBound(t, c.Admin, 1, 20*time.Second)
	assert.Equal(t, "n2", bound["web"].Spec.NodeName, "n1 runs an app=db pod in an env=prod namespace")
}

// TestIntegrationSharedInformers: a scheduler given the process's pod and
// node informers schedules through them without running them itself, and
// leaves them running when it stops.
func TestIntegrationSharedInformers(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("n1", "z", "2", "2Gi"), simcluster.Node("n2", "z", "2", "2Gi")}, 2))
	pods := informer.New[*core.Pod](informer.NewListerWatcher(client.For[core.Pod](c.Admin, ""), "", ""), informer.Config[*core.Pod]{})
	nodes := informer.New[*core.Node](informer.NewListerWatcher(client.For[core.Node](c.Admin, ""), "", ""), informer.Config[*core.Node]{})
	s, err := scheduler.New(scheduler.Config{Client: c.Scheduler, Pods: pods, Nodes: nodes, Logger: quiet()})
	require.NoError(t, err)
	sctx, stopScheduler := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(sctx) }()
	t.Cleanup(stopScheduler)

	// The informers are the test's: the scheduler has not started them
	// (Run would return ErrAlreadyRunning at once).
	ictx, stopInformers := context.WithCancel(ctx)
	runErrs := make(chan error, 2)
	go func() { runErrs <- pods.Run(ictx) }()
	go func() { runErrs <- nodes.Run(ictx) }()
	t.Cleanup(func() {
		stopInformers()
		for range 2 {
			assert.NoError(t, <-runErrs, "the test's Run of a shared informer")
		}
	})
	select {
	case <-s.Synced():
	case <-time.After(30 * time.Second):
		t.Fatal("scheduler did not sync")
	}
	var batch []*core.Pod
	for i := range 4 {
		batch = append(batch, simcluster.Pod(fmt.Sprintf("p%d", i), "500m", ""))
	}
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", batch, 2))
	bound := waitBound(t, c.Admin, 4, 20*time.Second)
	for _, p := range bound {
		assert.Contains(t, []string{"n1", "n2"}, p.Spec.NodeName)
	}

	stopScheduler()
	require.NoError(t, <-done)
	assert.True(t, pods.HasSynced(), "the pod informer outlives the scheduler")
	assert.True(t, nodes.HasSynced(), "the node informer outlives the scheduler")
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{simcluster.Pod("after", "100m", "")}, 1))
	waitFor(t, 20*time.Second, "the pod made after the scheduler stopped in the shared cache", func() bool {
		_, ok := pods.Indexer().Get("default/after")
		return ok
	})
}
