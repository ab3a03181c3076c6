package kubelet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
)

// TestFakeSidecars: an init container with restartPolicy Always starts
// before the app containers and keeps running (restarted when it exits,
// whatever the pod's policy); it counts for readiness; once the app
// containers of a restartPolicy Never pod succeed, the pod succeeds and
// the sidecar is stopped.
func TestFakeSidecars(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-sc", nil)
	ctx := context.Background()
	always := core.ContainerRestartPolicyAlways
	p := simplePod("sc", "node-sc")
	p.Spec.RestartPolicy = core.RestartPolicyNever
	p.Spec.InitContainers = []core.Container{
		{Name: "init", Image: "orkit.local/hello:v1", ImagePullPolicy: core.PullIfNotPresent, Command: []string{"/hello", "exit", "0"}},
		{Name: "side", Image: "orkit.local/hello:v1", ImagePullPolicy: core.PullIfNotPresent, RestartPolicy: &always},
	}
	p.Spec.Containers[0].Command = []string{"/hello", "sleep", "1h"}
	_, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "sc", 10*time.Second, "Running and Ready", func(p *core.Pod) bool {
		_, c := core.GetPodCondition(&p.Status, core.PodReady)
		return running(p) && c != nil && c.Status == meta.ConditionTrue
	})
	_, ini := core.GetPodCondition(&got.Status, core.PodInitialized)
	require.NotNil(t, ini)
	assert.Equal(t, meta.ConditionTrue, ini.Status)
	require.Len(t, got.Status.InitContainerStatuses, 2)
	assert.True(t, got.Status.InitContainerStatuses[0].Ready, "a completed init container is ready")
	side := got.Status.InitContainerStatuses[1]
	require.NotNil(t, side.State.Running, "the sidecar runs")
	assert.True(t, side.Ready)
	require.NotNil(t, side.Started)
	assert.True(t, *side.Started)

	// The sidecar exits: it is restarted although the pod's policy is Never.
	require.NoError(t, rt.Exit(strings.TrimPrefix(side.ContainerID, "cri://"), 1))
	waitPod(t, tc.admin, "default", "sc", 10*time.Second, "sidecar restarted", func(p *core.Pod) bool {
		s := p.Status.InitContainerStatuses[1]
		return p.Status.Phase == core.PodRunning && s.RestartCount == 1 && s.State.Running != nil
	})

	// The app container succeeds: the pod succeeds and the sidecar stops.
	app := got.Status.ContainerStatuses[0]
	require.NoError(t, rt.Exit(strings.TrimPrefix(app.ContainerID, "cri://"), 0))
	done := waitPod(t, tc.admin, "default", "sc", 10*time.Second, "Succeeded", func(p *core.Pod) bool {
		return p.Status.Phase == core.PodSucceeded
	})
	sc, err := rt.ContainerStatus(ctx, strings.TrimPrefix(done.Status.InitContainerStatuses[1].ContainerID, "cri://"))
	require.NoError(t, err)
	assert.Equal(t, cri.ContainerExited, sc.State)
}

// TestFakePodInitializingBeforeSlowSandbox: in a pod with init containers,
// containers not created yet wait with reason PodInitializing (the
// kubelet's default waiting state then), init containers included.
func TestFakePodInitializingBeforeSlowSandbox(t *testing.T) {
	tc := startCluster(t)
	tc.startFakeKubelet(t, "node-slowinit", func(c *Config) {
		c.Runtime = mustFake(t, fake.WithLatency("RunPodSandbox", 2*time.Second))
	})
	p := simplePod("slowinit", "node-slowinit")
	p.Spec.InitContainers = []core.Container{{Name: "init", Image: "orkit.local/hello:v1", ImagePullPolicy: core.PullIfNotPresent,
		Command: []string{"/hello", "exit", "0"}}}
	_, err := pods(tc.admin, "default").Create(context.Background(), p)
	require.NoError(t, err)
	got := waitPod(t, tc.admin, "default", "slowinit", 10*time.Second, "statuses reported", func(p *core.Pod) bool {
		return len(p.Status.InitContainerStatuses) == 1 && len(p.Status.ContainerStatuses) == 1
	})
	for _, cs := range append(got.Status.InitContainerStatuses, got.Status.ContainerStatuses...) {
		require.NotNil(t, cs.State.Waiting, cs.Name)
		assert.Equal(t, ReasonPodInitializing, cs.State.Waiting.Reason, cs.Name)
	}
	waitPod(t, tc.admin, "default", "slowinit", 10*time.Second, "Running", running)
}
