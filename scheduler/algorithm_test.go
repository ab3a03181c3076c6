package scheduler_test

import (
	"context"
	"errors"
	"fmt"
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

func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		pct   int32
		nodes int
		want  int
	}{
		{0, 10, 10}, {0, 99, 99}, {0, 100, 50 * 100 / 100}, {0, 1000, 420}, {0, 5000, 500},
		{0, 6000, 300}, {0, 10000, 500}, {0, 1500, 570}, {30, 1000, 300}, {1, 1000, 100}, {100, 5000, 5000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d%%-of-%d", tt.pct, tt.nodes), func(t *testing.T) {
			want := max(tt.want, min(tt.nodes, 100))
			assert.Equal(t, want, scheduler.NumFeasibleNodesToFind(tt.pct, tt.nodes))
		})
	}
}

func TestFitErrorSummary(t *testing.T) {
	var nodes []*core.Node
	for i := range 5 {
		n := simcluster.Node(fmt.Sprintf("n%d", i), "z", "1", "1Gi")
		if i >= 3 {
			n.Spec.Taints = []core.Taint{{Key: "dedicated", Value: "infra", Effect: core.TaintEffectNoSchedule}}
		}
		nodes = append(nodes, n)
	}
	sim, err := scheduler.NewSimulator(nil)
	require.NoError(t, err)
	_, err = sim.ScheduleOne(context.Background(), framework.NewSnapshot(nodes, nil), simcluster.Pod("big", "2", ""))
	var fe *scheduler.FitError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "0/5 nodes are available: 2 node(s) had untolerated taint {dedicated: infra}, 3 Insufficient cpu.", fe.Error())
	assert.Equal(t, map[string]bool{plugins.NameTaintToleration: true, plugins.NameNodeResourcesFit: true}, fe.Plugins())

	_, err = sim.ScheduleOne(context.Background(), framework.NewEmptySnapshot(), simcluster.Pod("p", "", ""))
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "no nodes available to schedule pods", fe.Error())

	other := simcluster.Pod("o", "", "")
	other.Spec.SchedulerName = "nobody"
	_, err = sim.ScheduleOne(context.Background(), framework.NewSnapshot(nodes, nil), other)
	assert.ErrorIs(t, err, scheduler.ErrUnknownProfile)
}

func TestSimulatorFillsNodesWithoutOvercommit(t *testing.T) {
	var nodes []*core.Node
	for i := range 3 {
		nodes = append(nodes, simcluster.Node(fmt.Sprintf("n%d", i), "z", "2", "4Gi"))
	}
	var pods []*core.Pod
	for i := range 8 {
		pods = append(pods, simcluster.Pod(fmt.Sprintf("p%d", i), "700m", "1Gi"))
	}
	sim, err := scheduler.NewSimulator(nil)
	require.NoError(t, err)
	out := sim.Schedule(context.Background(), framework.NewSnapshot(nodes, nil), pods)
	perNode := map[string]int{}
	failed := 0
	for _, p := range out {
		if p.Err != nil {
			failed++
			continue
		}
		perNode[p.Node]++
	}
	assert.Equal(t, map[string]int{"n0": 2, "n1": 2, "n2": 2}, perNode, "2 × 700m per 2-CPU node")
	assert.Equal(t, 2, failed)
}

func ExampleSimulator() {
	var nodes []*core.Node
	for i := range 4 {
		nodes = append(nodes, simcluster.Node(fmt.Sprintf("node-%d", i), "z", "4", "8Gi"))
	}
	var pods []*core.Pod
	for i := range 200 {
		pods = append(pods, simcluster.Pod(fmt.Sprintf("web-%d", i), "250m", "256Mi"))
	}
	sim, err := scheduler.NewSimulator([]framework.Profile{plugins.DefaultProfile("")})
	if err != nil {
		panic(err)
	}
	placed := 0
	for _, p := range sim.Schedule(context.Background(), framework.NewSnapshot(nodes, nil), pods) {
		if p.Err == nil {
			placed++
		}
	}
	fmt.Printf("%d of %d pods fit\n", placed, len(pods))
	// Output: 64 of 200 pods fit
}

// TestSimulatorAffinityNamespaceSelector checks both directions of a
// namespaceSelector: the scheduled pod's own anti-affinity (resolved to
// namespace names) and an existing pod's anti-affinity (matched against
// the labels of the scheduled pod's namespace).
func TestSimulatorAffinityNamespaceSelector(t *testing.T) {
	nss := framework.StaticNamespaces{"prod": {"env": "prod"}, "web": {"team": "web"}}
	antiTo := func(app string, nsSel map[string]string) *core.Affinity {
		return &core.Affinity{PodAntiAffinity: &core.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []core.PodAffinityTerm{{
				TopologyKey:       core.LabelTopologyZone,
				LabelSelector:     &meta.LabelSelector{MatchLabels: map[string]string{"app": app}},
				NamespaceSelector: &meta.LabelSelector{MatchLabels: nsSel}}}}}
	}
	tests := []struct {
		name            string
		dbAnti, webAnti *core.Affinity
		fits            bool
	}{
		{"no terms", nil, nil, true},
		{"web avoids db in env=prod namespaces", nil, antiTo("db", map[string]string{"env": "prod"}), false},
		{"web avoids db in env=dev namespaces only", nil, antiTo("db", map[string]string{"env": "dev"}), true},
		{"db avoids web in team=web namespaces", antiTo("web", map[string]string{"team": "web"}), nil, false},
		{"db avoids web in team=api namespaces only", antiTo("web", map[string]string{"team": "api"}), nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node := simcluster.Node("n0", "a", "4", "8Gi")
			db := simcluster.Pod("db", "", "")
			db.Namespace, db.Labels, db.Spec.NodeName, db.Spec.Affinity = "prod", map[string]string{"app": "db"}, "n0", tc.dbAnti
			web := simcluster.Pod("web", "", "")
			web.Namespace, web.Labels, web.Spec.Affinity = "web", map[string]string{"app": "web"}, tc.webAnti
			sim, err := scheduler.NewSimulator(nil)
			require.NoError(t, err)
			sim.SetNamespaces(nss)
			got, err := sim.ScheduleOne(context.Background(), framework.NewSnapshot([]*core.Node{node}, []*core.Pod{db}), web)
			if tc.fits {
				require.NoError(t, err)
				assert.Equal(t, "n0", got)
				return
			}
			var fe *scheduler.FitError
			require.ErrorAs(t, err, &fe)
			assert.Contains(t, fe.Error(), "anti-affinity")
		})
	}
}
