package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/orkit/orkit/scheduler/framework"
)

func cnode(name string) *core.Node {
	rl := core.ResourceList{core.ResourceCPU: resource.MustParse("4"), core.ResourcePods: resource.MustParse("10")}
	return &core.Node{ObjectMeta: meta.ObjectMeta{Name: name}, Status: core.NodeStatus{Allocatable: rl}}
}

func cpod(name, node, cpu string) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "ns", UID: meta.UID(name)},
		Spec: core.PodSpec{NodeName: node, Containers: []core.Container{{Name: "c", Resources: core.ResourceRequirements{
			Requests: core.ResourceList{core.ResourceCPU: resource.MustParse(cpu)}}}}}}
}

func requested(t *testing.T, snap *framework.Snapshot, node string) int64 {
	t.Helper()
	ni, err := snap.Get(node)
	require.NoError(t, err)
	return ni.Requested.MilliCPU
}

func TestCacheAssumeConfirmForget(t *testing.T) {
	c := NewCache(time.Minute)
	c.AddNode(cnode("n1"))
	c.AddNode(cnode("n2"))
	snap := framework.NewEmptySnapshot()
	c.UpdateSnapshot(snap)
	assert.Equal(t, 2, snap.NumNodes())

	a := cpod("a", "n1", "1")
	require.NoError(t, c.AssumePod(framework.NewPodInfo(a)))
	assert.ErrorIs(t, c.AssumePod(framework.NewPodInfo(a)), ErrAlreadyAssumed)
	assert.True(t, c.IsAssumed(a))
	c.UpdateSnapshot(snap)
	assert.Equal(t, int64(1000), requested(t, snap, "n1"))

	// The informer confirms it on another node than assumed: it moves.
	c.AddPod(cpod("a", "n2", "1"))
	assert.False(t, c.IsAssumed(a))
	c.UpdateSnapshot(snap)
	assert.Equal(t, int64(0), requested(t, snap, "n1"))
	assert.Equal(t, int64(1000), requested(t, snap, "n2"))

	b := cpod("b", "n1", "2")
	require.NoError(t, c.AssumePod(framework.NewPodInfo(b)))
	require.NoError(t, c.ForgetPod(b))
	assert.ErrorIs(t, c.ForgetPod(b), ErrNotAssumed)
	c.UpdateSnapshot(snap)
	assert.Equal(t, int64(0), requested(t, snap, "n1"))
	nodes, pods := c.Counts()
	assert.Equal(t, [2]int{2, 1}, [2]int{nodes, pods})
}

func TestCacheExpiresUnconfirmed(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewCache(30 * time.Second)
	c.now = func() time.Time { return now }
	c.AddNode(cnode("n1"))
	a := cpod("a", "n1", "1")
	require.NoError(t, c.AssumePod(framework.NewPodInfo(a)))
	now = now.Add(time.Hour)
	assert.Empty(t, c.Cleanup(), "binding not finished: never expires")
	require.NoError(t, c.FinishBinding(a))
	now = now.Add(29 * time.Second)
	assert.Empty(t, c.Cleanup())
	now = now.Add(2 * time.Second)
	assert.Len(t, c.Cleanup(), 1)
	assert.False(t, c.Has(a))
}

func TestCacheSnapshotCopiesOnlyChanges(t *testing.T) {
	c := NewCache(0)
	for _, n := range []string{"n1", "n2", "n3"} {
		c.AddNode(cnode(n))
	}
	snap := framework.NewEmptySnapshot()
	c.UpdateSnapshot(snap)
	n2, _ := snap.Get("n2")
	gen := n2.Generation
	c.AddPod(cpod("a", "n1", "1"))
	c.UpdateSnapshot(snap)
	n2, _ = snap.Get("n2")
	assert.Equal(t, gen, n2.Generation, "n2 unchanged")
	c.RemoveNode("n3")
	c.UpdateSnapshot(snap)
	assert.Equal(t, 2, snap.NumNodes())
	// A node removed and added back before a snapshot stays.
	c.RemoveNode("n2")
	c.AddNode(cnode("n2"))
	c.UpdateSnapshot(snap)
	_, err := snap.Get("n2")
	assert.NoError(t, err)
	// A pod on an unknown node keeps its NodeInfo out of the snapshot.
	c.AddPod(cpod("b", "ghost", "1"))
	c.UpdateSnapshot(snap)
	_, err = snap.Get("ghost")
	assert.ErrorIs(t, err, framework.ErrNotFound)
	c.RemovePod(cpod("b", "ghost", "1"))
	nodes, pods := c.Counts()
	assert.Equal(t, [2]int{2, 1}, [2]int{nodes, pods})
}

func TestCacheSnapshotForSimulation(t *testing.T) {
	c := NewCache(0)
	c.AddNode(cnode("n1"))
	c.AddNode(cnode("n2"))
	c.AddPod(cpod("a", "n1", "3"))
	mine := framework.NewEmptySnapshot()
	c.RemoveNode("n2")
	sim := c.Snapshot()
	assert.Equal(t, 1, sim.NumNodes())
	require.NoError(t, sim.AssumePod(framework.NewPodInfo(cpod("b", "n1", "1")), "n1"))
	assert.Equal(t, int64(4000), requested(t, sim, "n1"))
	c.UpdateSnapshot(mine)
	assert.Equal(t, 1, mine.NumNodes(), "the scheduler's snapshot still sees the removal")
	assert.Equal(t, int64(3000), requested(t, mine, "n1"), "the simulation did not touch the cache")
}
