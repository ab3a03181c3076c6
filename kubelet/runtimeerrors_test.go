package kubelet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/cri"
)

// TestRuntimeErrorsLeaveContainersAlone: while the runtime fails container
// status calls (a containerd restarting under the kubelet), the kubelet must not
// take a container it cannot see for a dead one: no new container, no
// restart, and once the runtime answers the pod is as it was.
func TestRuntimeErrorsLeaveContainersAlone(t *testing.T) {
	tc := startCluster(t)
	_, rt := tc.startFakeKubelet(t, "node-e", func(c *Config) { c.ResyncInterval = 50 * time.Millisecond })
	ctx := context.Background()
	_, err := pods(tc.admin, "default").Create(ctx, simplePod("steady", "node-e"))
	require.NoError(t, err)
	before := waitPod(t, tc.admin, "default", "steady", 10*time.Second, "running and ready", func(p *core.Pod) bool {
		return running(p) && isReady(p)
	})
	require.Len(t, before.Status.ContainerStatuses, 1)

	creates, stops := rt.Calls("CreateContainer"), rt.Calls("StopContainer")
	statusCalls := rt.Calls("ContainerStatus")
	for _, m := range []string{"ContainerStatus"} {
		require.NoError(t, rt.InjectFailure(m, cri.ErrUnavailable, 0))
	}
	waitFor(t, 10*time.Second, "the kubelet syncs against the failing runtime", func() bool {
		return rt.Calls("ContainerStatus") >= statusCalls+10
	})
	assert.Equal(t, creates, rt.Calls("CreateContainer"), "no new container while the runtime fails")
	assert.Equal(t, stops, rt.Calls("StopContainer"), "nothing stopped while the runtime fails")
	rt.ClearFailure("ContainerStatus")

	after := waitPod(t, tc.admin, "default", "steady", 10*time.Second, "running and ready again", func(p *core.Pod) bool {
		return running(p) && isReady(p)
	})
	require.Len(t, after.Status.ContainerStatuses, 1)
	assert.Equal(t, before.Status.ContainerStatuses[0].ContainerID, after.Status.ContainerStatuses[0].ContainerID)
	assert.Zero(t, after.Status.ContainerStatuses[0].RestartCount)
	ctrs, err := rt.ListContainers(ctx, cri.ContainerFilter{})
	require.NoError(t, err)
	assert.Len(t, ctrs, 1)
}
