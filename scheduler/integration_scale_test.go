package scheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
)

// scaleNodes returns n nodes of two sizes across 10 zones; every seventh
// node is tainted dedicated=infra:NoSchedule (so every zone has some).
func scaleNodes(n int) []*core.Node {
	nodes := make([]*core.Node, n)
	for i := range nodes {
		cpu, mem := "4", "8Gi"
		if i%2 == 1 {
			cpu, mem = "8", "16Gi"
		}
		nodes[i] = simcluster.Node(fmt.Sprintf("node-%04d", i), fmt.Sprintf("zone-%d", i%10), cpu, mem)
		if i%7 == 0 {
			nodes[i].Spec.Taints = []core.Taint{{Key: "dedicated", Value: "infra", Effect: core.TaintEffectNoSchedule}}
		}
	}
	return nodes
}

var podSizes = [][2]string{{"100m", "128Mi"}, {"250m", "256Mi"}, {"500m", "512Mi"}, {"1", "1Gi"}, {"", ""}}

// scalePods returns n pods of mixed sizes; every 50th tolerates the
// infra taint, and the first `spread` carry a zone spread constraint.
func scalePods(n, spread int) []*core.Pod {
	pods := make([]*core.Pod, n)
	for i := range pods {
		sz := podSizes[i%len(podSizes)]
		p := simcluster.Pod(fmt.Sprintf("pod-%05d", i), sz[0], sz[1])
		if i%50 == 0 {
			p.Spec.Tolerations = []core.Toleration{{Key: "dedicated", Operator: core.TolerationOpEqual, Value: "infra", Effect: core.TaintEffectNoSchedule}}
		}
		if i < spread {
			p.Labels = map[string]string{"app": "spread"}
			p.Spec.TopologySpreadConstraints = []core.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: core.LabelTopologyZone, WhenUnsatisfiable: core.DoNotSchedule,
				LabelSelector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "spread"}},
			}}
		}
		pods[i] = p
	}
	return pods
}

// TestIntegrationScale schedules 5,000 pods of mixed sizes onto 1,000
// simulated nodes through the API server and checks every pod is bound,
// no node is over its allocatable, taints are respected and the spread
// pods are within their skew.
func TestIntegrationScale(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 nodes and 5,000 pods")
	}
	const numNodes, numPods, numSpread = 1000, 5000, 40
	c := simcluster.Start(t)
	ctx := context.Background()
	nodes := scaleNodes(numNodes)
	start := time.Now()
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, nodes, 16))
	t.Logf("created %d nodes in %v", numNodes, time.Since(start))
	s := startScheduler(t, c, scheduler.Config{})
	start = time.Now()
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", scalePods(numPods, numSpread), 16))
	t.Logf("created %d pods in %v", numPods, time.Since(start))
	bound := waitBound(t, c.Admin, numPods, 90*time.Second)
	t.Logf("all %d pods bound %v after the first create; stats %+v", numPods, time.Since(start), s.Stats())
	checkAllocatable(t, nodes, bound)
	checkTaints(t, nodes, bound)
	checkSpread(t, nodes, bound, "spread", 1)
}

func checkAllocatable(t *testing.T, nodes []*core.Node, bound map[string]*core.Pod) {
	t.Helper()
	used := map[string]*framework.Resource{}
	for _, p := range bound {
		r, ok := used[p.Spec.NodeName]
		if !ok {
			r = &framework.Resource{}
			used[p.Spec.NodeName] = r
		}
		req, _ := framework.PodRequests(p)
		req.AllowedPodNumber = 1
		r.Add(&req)
	}
	for _, n := range nodes {
		u, ok := used[n.Name]
		if !ok {
			continue
		}
		alloc := framework.NewResource(n.Status.Allocatable)
		assert.LessOrEqual(t, u.MilliCPU, alloc.MilliCPU, "cpu on %s", n.Name)
		assert.LessOrEqual(t, u.Memory, alloc.Memory, "memory on %s", n.Name)
		assert.LessOrEqual(t, u.AllowedPodNumber, alloc.AllowedPodNumber, "pods on %s", n.Name)
	}
}

func checkTaints(t *testing.T, nodes []*core.Node, bound map[string]*core.Pod) {
	t.Helper()
	tainted := map[string]core.Taint{}
	for _, n := range nodes {
		for _, taint := range n.Spec.Taints {
			tainted[n.Name] = taint
		}
	}
	onTainted := 0
	for _, p := range bound {
		taint, ok := tainted[p.Spec.NodeName]
		if !ok {
			continue
		}
		onTainted++
		assert.True(t, core.TolerationsTolerateTaint(p.Spec.Tolerations, &taint), "pod %s on tainted node %s", p.Name, p.Spec.NodeName)
	}
	t.Logf("%d pods on tainted nodes, all tolerating", onTainted)
}

func checkSpread(t *testing.T, nodes []*core.Node, bound map[string]*core.Pod, app string, maxSkew int) {
	t.Helper()
	zoneOf := map[string]string{}
	perZone := map[string]int{}
	for _, n := range nodes {
		zoneOf[n.Name] = n.Labels[core.LabelTopologyZone]
		perZone[zoneOf[n.Name]] += 0
	}
	for _, p := range bound {
		if p.Labels["app"] == app {
			perZone[zoneOf[p.Spec.NodeName]]++
		}
	}
	lo, hi := -1, 0
	for _, n := range perZone {
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	assert.LessOrEqual(t, hi-lo, maxSkew, "spread per zone %v", perZone)
}
