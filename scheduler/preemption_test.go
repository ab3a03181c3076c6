package scheduler_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

type recordingEvictor struct {
	mu        sync.Mutex
	evicted   []string
	nominated map[string]string
}

func (r *recordingEvictor) Evict(_ context.Context, victim, _ *core.Pod) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evicted = append(r.evicted, victim.Name)
	return nil
}

func (r *recordingEvictor) Nominate(_ context.Context, pod *core.Pod, node string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nominated == nil {
		r.nominated = map[string]string{}
	}
	r.nominated[pod.Name] = node
	return nil
}

func bound(p *core.Pod, node string, prio int32) *core.Pod {
	p.Spec.NodeName = node
	p.UID = meta.UID("uid-" + p.Name)
	return withPriority(p, prio)
}

func TestPreemptionPicksSmallestSet(t *testing.T) {
	nodes := []*core.Node{simcluster.Node("a", "z", "2", "4Gi"), simcluster.Node("b", "z", "2", "4Gi"), simcluster.Node("c", "z", "2", "4Gi")}
	pods := []*core.Pod{
		// a: two 1-CPU pods of priority 5: two victims needed.
		bound(simcluster.Pod("a1", "1", ""), "a", 5), bound(simcluster.Pod("a2", "1", ""), "a", 5),
		// b: one 2-CPU pod of priority 1: one victim, lowest priority.
		bound(simcluster.Pod("b1", "2", ""), "b", 1),
		// c: a 1-CPU pod of priority 1 and one of priority 200 (not preemptible).
		bound(simcluster.Pod("c1", "1", ""), "c", 1), bound(simcluster.Pod("c2", "1", ""), "c", 200),
	}
	ev := &recordingEvictor{}
	p := scheduler.NewPreemption(ev, 2)
	prof := plugins.DefaultProfile("")
	prof.Plugins = []framework.Plugin{p}
	fwk, err := framework.New(prof)
	require.NoError(t, err)
	p.SetFramework(fwk)
	snap := framework.NewSnapshot(nodes, pods)
	preemptor := withPriority(simcluster.Pod("high", "2", ""), 100)
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	require.Nil(t, fwk.RunPreFilter(context.Background(), state, preemptor))
	filtered := framework.NodeToStatus{}
	for _, ni := range snap.List() {
		filtered[ni.Name()] = fwk.RunFilter(context.Background(), state, preemptor, ni)
	}
	node, st := fwk.RunPostFilter(context.Background(), state, preemptor, filtered)
	require.Nil(t, st)
	assert.Equal(t, "b", node)
	assert.Equal(t, []string{"b1"}, ev.evicted)
	assert.Equal(t, map[string]string{"high": "b"}, ev.nominated)

	never := core.PreemptNever
	preemptor.Spec.PreemptionPolicy = &never
	_, st = fwk.RunPostFilter(context.Background(), state, preemptor, filtered)
	assert.Equal(t, framework.Unschedulable, st.Code())

	low := withPriority(simcluster.Pod("low", "2", ""), 0)
	_, st = fwk.RunPostFilter(context.Background(), state, low, filtered)
	assert.Contains(t, st.Message(), "No preemption victims found")
}

func TestSelectVictimsReprievesWhatFits(t *testing.T) {
	n := simcluster.Node("a", "z", "3", "4Gi")
	pods := []*core.Pod{bound(simcluster.Pod("x", "1", ""), "a", 1), bound(simcluster.Pod("y", "1", ""), "a", 2), bound(simcluster.Pod("z", "1", ""), "a", 3)}
	p := scheduler.NewPreemption(&recordingEvictor{}, 1)
	fwk, err := framework.New(framework.Profile{Predicates: []framework.Predicate{plugins.Fit{}}, Plugins: []framework.Plugin{p}})
	require.NoError(t, err)
	p.SetFramework(fwk)
	snap := framework.NewSnapshot([]*core.Node{n}, pods)
	ni, _ := snap.Get("a")
	victims, ok := p.SelectVictims(context.Background(), framework.NewCycleState(), withPriority(simcluster.Pod("h", "2", ""), 10), ni)
	require.True(t, ok)
	var names []string
	for _, v := range victims {
		names = append(names, v.Name)
	}
	assert.Equal(t, []string{"y", "x"}, names, "z (most important) is reprieved; the two others must go")
}

// TestPreemptionRecountsAntiAffinity: the only node holds a low-priority
// pod that the preemptor's required anti-affinity forbids. Removing it
// must also remove it from the inter-pod affinity counts of PreFilter,
// or no node ever looks feasible and nothing is preempted.
func TestPreemptionRecountsAntiAffinity(t *testing.T) {
	n := simcluster.Node("a", "z", "4", "8Gi")
	db := bound(simcluster.Pod("db", "100m", ""), "a", 1)
	db.Labels = map[string]string{"app": "db"}
	other := bound(simcluster.Pod("other", "100m", ""), "a", 1)
	ev := &recordingEvictor{}
	p := scheduler.NewPreemption(ev, 1)
	prof := plugins.DefaultProfile("")
	prof.Plugins = []framework.Plugin{p}
	fwk, err := framework.New(prof)
	require.NoError(t, err)
	p.SetFramework(fwk)
	snap := framework.NewSnapshot([]*core.Node{n}, []*core.Pod{db, other})
	preemptor := withPriority(simcluster.Pod("high", "100m", ""), 100)
	preemptor.Spec.Affinity = &core.Affinity{PodAntiAffinity: &core.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []core.PodAffinityTerm{{TopologyKey: core.LabelHostname,
			LabelSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}}}
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	require.Nil(t, fwk.RunPreFilter(context.Background(), state, preemptor))
	ni, _ := snap.Get("a")
	st := fwk.RunFilter(context.Background(), state, preemptor, ni)
	require.False(t, st.IsSuccess(), "db is in the way")
	node, st := fwk.RunPostFilter(context.Background(), state, preemptor, framework.NodeToStatus{"a": st})
	require.Nil(t, st)
	assert.Equal(t, "a", node)
	assert.Equal(t, []string{"db"}, ev.evicted, "only db goes; other is reprieved")
	// The cycle's own state is untouched: db still counts there.
	assert.False(t, fwk.RunFilter(context.Background(), state, preemptor, ni).IsSuccess())
}
