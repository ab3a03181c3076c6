package podgc

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/internal/testnode"
)

func TestPodGC(t *testing.T) {
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	// A node with no agent: nothing but the test changes its pods.
	_, err := client.For[core.Node](admin, "").Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: "test-node-0"}})
	require.NoError(t, err)
	pods := client.For[core.Pod](admin, "default")
	mk := func(name, node string, phase core.PodPhase) {
		p, err := pods.Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: name},
			Spec: core.PodSpec{NodeName: node, RestartPolicy: core.RestartPolicyNever,
				Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}})
		require.NoError(t, err)
		if phase != "" {
			p.Status.Phase = phase
			_, err = pods.UpdateStatus(ctx, p)
			require.NoError(t, err)
		}
	}
	// Creation timestamps have one-second resolution: the oldest two are
	// made a second before the rest.
	mk("old-1", "test-node-0", core.PodSucceeded)
	mk("old-2", "test-node-0", core.PodFailed)
	time.Sleep(1100 * time.Millisecond) // timestamps a second apart; this orders creations, it synchronizes nothing
	mk("new-1", "test-node-0", core.PodSucceeded)
	mk("new-2", "test-node-0", core.PodFailed)
	mk("orphan", "ghost", "")

	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	gc, err := New(m, Config{TerminatedPodThreshold: 2, Period: 100 * time.Millisecond, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(gc))
	testnode.RunManager(t, m)

	names := func() []string {
		l, err := pods.List(ctx, client.ListOptions{})
		require.NoError(t, err)
		var out []string
		for _, p := range l.Items {
			out = append(out, p.Name)
		}
		return out
	}
	testnode.Eventually(t, 20*time.Second, func() bool { return len(names()) == 2 }, "pods collected")
	assert.ElementsMatch(t, []string{"new-1", "new-2"}, names(), "the oldest terminated pods and the orphan go")
}

func TestConfig(t *testing.T) {
	cl := testnode.StartCluster(t)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.AdminKubeconfig)})
	require.NoError(t, err)
	_, err = New(m, Config{TerminatedPodThreshold: -1})
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, err = New(nil, Config{})
	require.ErrorIs(t, err, ErrInvalidConfig)
}
