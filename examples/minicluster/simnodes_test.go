package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// webDeployment is an ordinary Deployment: no tolerations, no node selector.
func webDeployment(replicas int32) *apps.Deployment {
	labels := map[string]string{"app": "web"}
	return &apps.Deployment{
		ObjectMeta: meta.ObjectMeta{Name: "web"},
		Spec: apps.DeploymentSpec{
			Replicas: &replicas,
			Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{
				ObjectMeta: meta.ObjectMeta{Labels: labels},
				Spec:       core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}},
			},
		},
	}
}

// TestSimNodesRunOrdinaryWorkloads: `--nodes 0 --sim-nodes 3` runs an
// ordinary Deployment (issue 20 item 4): the simulated nodes carry no
// taint unless --sim-node-taint asks, and with it the same Deployment
// stays Pending, unschedulable for the taint.
func TestSimNodesRunOrdinaryWorkloads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		taint   bool
		running bool
	}{
		{name: "untainted by default", taint: false, running: true},
		{name: "tainted when asked", taint: true, running: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out := &syncBuffer{}
			c, err := startCluster(ctx, options{DataDir: t.TempDir(), Listen: freeAddr(t), Nodes: 0, SimNodes: 3,
				SimNodeTaint: tc.taint, Out: out})
			require.NoError(t, err, out.String())
			defer c.Close()
			nodes := waitNodes(ctx, t, c.admin, 3)
			for _, n := range nodes {
				if tc.taint {
					require.Len(t, n.Spec.Taints, 1, n.Name)
					assert.Equal(t, simTaint, n.Spec.Taints[0])
				} else {
					assert.Empty(t, n.Spec.Taints, n.Name)
				}
			}
			_, err = client.For[apps.Deployment](c.admin, "default").Create(ctx, webDeployment(3))
			require.NoError(t, err)
			pods := waitPods(ctx, t, c.admin, 3, func(p *core.Pod) bool {
				if tc.running {
					return p.Status.Phase == core.PodRunning
				}
				return unschedulable(p)
			})
			for _, p := range pods {
				if tc.running {
					assert.True(t, strings.HasPrefix(p.Spec.NodeName, "sim-node-"), "%s on %q", p.Name, p.Spec.NodeName)
				} else {
					assert.Empty(t, p.Spec.NodeName, p.Name)
				}
			}
		})
	}
}

// unschedulable says the scheduler gave up on p for now (PodScheduled
// False, reason Unschedulable).
func unschedulable(p *core.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == core.PodScheduled && c.Status == meta.ConditionFalse && c.Reason == "Unschedulable" {
			return true
		}
	}
	return false
}

// waitNodes polls until n Nodes are registered and returns them.
func waitNodes(ctx context.Context, t *testing.T, c *client.Client, n int) []core.Node {
	t.Helper()
	for {
		l, err := client.For[core.Node](c, "").List(ctx, client.ListOptions{})
		require.NoError(t, err)
		if len(l.Items) == n {
			return l.Items
		}
		require.NoError(t, ctx.Err(), "%d nodes registered, want %d", len(l.Items), n)
		time.Sleep(50 * time.Millisecond)
	}
}

// waitPods polls until n pods exist in default and every one satisfies ok.
func waitPods(ctx context.Context, t *testing.T, c *client.Client, n int, ok func(*core.Pod) bool) []core.Pod {
	t.Helper()
	for {
		l, err := client.For[core.Pod](c, "default").List(ctx, client.ListOptions{})
		require.NoError(t, err)
		good := 0
		for i := range l.Items {
			if ok(&l.Items[i]) {
				good++
			}
		}
		if len(l.Items) == n && good == n {
			return l.Items
		}
		require.NoError(t, ctx.Err(), "%d pods, %d of them as wanted; want %d", len(l.Items), good, n)
		time.Sleep(100 * time.Millisecond)
	}
}
