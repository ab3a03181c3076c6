package framework_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/scheduler/framework"
)

var ctx = context.Background()

func rl(cpu, mem string) core.ResourceList {
	out := core.ResourceList{core.ResourcePods: resource.MustParse("10")}
	if cpu != "" {
		out[core.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		out[core.ResourceMemory] = resource.MustParse(mem)
	}
	return out
}

func node(name, cpu, mem string) *core.Node {
	return &core.Node{ObjectMeta: meta.ObjectMeta{Name: name}, Status: core.NodeStatus{Allocatable: rl(cpu, mem)}}
}

func pod(name, nodeName, cpu string) *core.Pod {
	req := core.ResourceList{}
	if cpu != "" {
		req[core.ResourceCPU] = resource.MustParse(cpu)
	}
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", UID: meta.UID(name)},
		Spec: core.PodSpec{NodeName: nodeName, Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{Requests: req}}}}}
}

func TestStatus(t *testing.T) {
	var nilStatus *framework.Status
	assert.True(t, nilStatus.IsSuccess())
	assert.Equal(t, framework.Success, nilStatus.Code())
	assert.NoError(t, nilStatus.Err())
	assert.Equal(t, "Success", nilStatus.String())
	s := framework.NewStatus(framework.Unschedulable, "Insufficient cpu", "Insufficient memory")
	assert.True(t, s.IsRejected())
	assert.Equal(t, "Insufficient cpu, Insufficient memory", s.Message())
	assert.Equal(t, "Unschedulable: Insufficient cpu, Insufficient memory", s.String())
	assert.Equal(t, "Fit", s.WithPlugin("Fit").Plugin())
	assert.Equal(t, "", s.Plugin(), "WithPlugin copies")
	boom := errors.New("boom")
	e := framework.AsStatus(boom)
	assert.Equal(t, framework.Error, e.Code())
	assert.ErrorIs(t, e.Err(), boom)
	assert.Nil(t, framework.AsStatus(nil))
	assert.Equal(t, "Unknown", framework.Code(42).String())
}

func TestPodRequestsAndNodeInfo(t *testing.T) {
	p := pod("p", "n", "500m")
	p.Spec.InitContainers = []core.Container{{Name: "init", Resources: core.ResourceRequirements{Requests: rl("2", "")}}}
	p.Spec.Overhead = core.ResourceList{core.ResourceCPU: resource.MustParse("100m")}
	req, nz := framework.PodRequests(p)
	assert.Equal(t, int64(2100), req.MilliCPU, "largest init container plus overhead")
	assert.Equal(t, framework.DefaultMemoryRequest, nz.Memory)

	ni := framework.NewNodeInfo(node("n", "4", "4Gi"))
	a := framework.NewPodInfo(pod("a", "n", "1"))
	b := framework.NewPodInfo(pod("b", "n", "500m"))
	ni.AddPod(a)
	ni.AddPod(b)
	clone := ni.Clone()
	require.NoError(t, ni.RemovePod(a.Pod))
	assert.Equal(t, int64(500), ni.Requested.MilliCPU)
	assert.Equal(t, int64(1500), clone.Requested.MilliCPU, "the clone is unaffected")
	assert.Len(t, clone.Pods, 2)
	assert.ErrorIs(t, ni.RemovePod(a.Pod), framework.ErrNotFound)
}

func TestSnapshotApplyIsIncremental(t *testing.T) {
	n1, n2 := framework.NewNodeInfo(node("n1", "1", "1Gi")), framework.NewNodeInfo(node("n2", "1", "1Gi"))
	s := framework.NewEmptySnapshot()
	s.Apply(2, []*framework.NodeInfo{n1, n2}, nil)
	assert.Equal(t, 2, s.NumNodes())
	got, err := s.Get("n1")
	require.NoError(t, err)
	before := got
	n1.AddPod(framework.NewPodInfo(pod("a", "n1", "100m")))
	assert.Empty(t, got.Pods, "the snapshot holds a copy")
	s.Apply(3, []*framework.NodeInfo{n1}, nil)
	got, _ = s.Get("n1")
	assert.Same(t, before, got, "updated in place")
	assert.Len(t, got.Pods, 1)
	assert.Equal(t, int64(3), s.Generation())
	s.Apply(4, nil, []string{"n2"})
	assert.Equal(t, 1, s.NumNodes())
	_, err = s.Get("n2")
	assert.ErrorIs(t, err, framework.ErrNotFound)
}

type countingFilter struct {
	name  string
	calls atomic.Int64
	fail  string
}

func (f *countingFilter) Name() string { return f.name }

func (f *countingFilter) Filter(_ context.Context, _ *framework.CycleState, _ *core.Pod, n *framework.NodeInfo) *framework.Status {
	f.calls.Add(1)
	if n.Name() == f.fail {
		return framework.NewStatus(framework.Unschedulable, "no")
	}
	return nil
}

type permitWait struct{}

func (permitWait) Name() string { return "Wait" }

func (permitWait) Permit(context.Context, *framework.CycleState, *core.Pod, string) (*framework.Status, time.Duration) {
	return framework.NewStatus(framework.Wait), time.Minute
}

func TestFrameworkRunners(t *testing.T) {
	f1, f2 := &countingFilter{name: "A", fail: "bad"}, &countingFilter{name: "B"}
	fwk, err := framework.New(framework.Profile{Predicates: []framework.Predicate{f1, f2}, Plugins: []framework.Plugin{permitWait{}}})
	require.NoError(t, err)
	assert.Equal(t, framework.DefaultSchedulerName, fwk.SchedulerName())
	s := fwk.RunFilter(ctx, framework.NewCycleState(), pod("p", "", ""), framework.NewNodeInfo(node("bad", "1", "1")))
	assert.Equal(t, "A", s.Plugin())
	assert.Equal(t, int64(0), f2.calls.Load(), "the first rejection stops the chain")

	p := pod("p", "", "")
	st, wait := fwk.RunPermit(ctx, nil, p, "n")
	assert.Equal(t, framework.Wait, st.Code())
	assert.Equal(t, time.Minute, wait)
	done := make(chan *framework.Status)
	go func() { done <- fwk.WaitOnPermit(ctx, p, wait) }()
	require.Eventually(t, func() bool { return fwk.Allow(p.UID) }, 5*time.Second, time.Millisecond)
	assert.Nil(t, <-done)
	assert.True(t, fwk.RunBind(ctx, nil, p, "n").IsSkip(), "no binder: the caller binds")
}

func TestProfileValidation(t *testing.T) {
	f := &countingFilter{name: "A"}
	tests := []struct {
		name string
		p    framework.Profile
	}{
		{"bad percentage", framework.Profile{PercentageOfNodesToScore: 101}},
		{"zero weight", framework.Profile{Priorities: []framework.WeightedPriority{{Priority: scoreFunc{}, Weight: 0}}}},
		{"nameless plugin", framework.Profile{Predicates: []framework.Predicate{&countingFilter{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := framework.New(tt.p)
			assert.ErrorIs(t, err, framework.ErrInvalidProfile)
		})
	}
	_, err := framework.New(framework.Profile{Predicates: []framework.Predicate{f, f}})
	assert.NoError(t, err, "a plugin listed twice runs its hooks once")
}

type scoreFunc struct{}

func (scoreFunc) Name() string { return "S" }

func (scoreFunc) Score(_ context.Context, _ *framework.CycleState, _ *core.Pod, n *framework.NodeInfo) (int64, *framework.Status) {
	if n.Name() == "over" {
		return 1000, nil
	}
	return 10, nil
}

func TestRunScoreRejectsOutOfRange(t *testing.T) {
	fwk, err := framework.New(framework.Profile{Priorities: []framework.WeightedPriority{{Priority: scoreFunc{}, Weight: 2}}})
	require.NoError(t, err)
	nodes := []*framework.NodeInfo{framework.NewNodeInfo(node("a", "1", "1")), framework.NewNodeInfo(node("b", "1", "1"))}
	totals, s := fwk.RunScore(ctx, framework.NewCycleState(), pod("p", "", ""), nodes, 2)
	require.Nil(t, s)
	assert.Equal(t, []int64{20, 20}, totals)
	nodes = append(nodes, framework.NewNodeInfo(node("over", "1", "1")))
	_, s = fwk.RunScore(ctx, framework.NewCycleState(), pod("p", "", ""), nodes, 2)
	assert.Equal(t, framework.Error, s.Code())
	assert.Equal(t, "S", s.Plugin())
}

func TestParallelize(t *testing.T) {
	for _, workers := range []int{1, 2, 7} {
		var sum atomic.Int64
		framework.Parallelize(ctx, workers, 1000, func(i int) { sum.Add(int64(i)) })
		assert.Equal(t, int64(999*1000/2), sum.Load())
	}
}

func TestCycleState(t *testing.T) {
	s := framework.NewCycleState()
	_, err := s.Read("x")
	assert.ErrorIs(t, err, framework.ErrNotFound)
	s.Write("x", &intState{1})
	c := s.Clone()
	s.Write("x", &intState{2})
	v, err := framework.ReadAs[*intState](c, "x")
	require.NoError(t, err)
	assert.Equal(t, 1, v.v)
	_, err = framework.ReadAs[other](s, "x")
	assert.ErrorIs(t, err, framework.ErrWrongType)
}

type intState struct{ v int }

func (i *intState) Clone() framework.StateData { c := *i; return &c }

type other struct{}

func (other) Clone() framework.StateData { return other{} }
