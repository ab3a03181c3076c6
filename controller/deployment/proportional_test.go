package deployment_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
)

// TestProportionalScaling scales a Deployment in the middle of a stuck
// rollout: both ReplicaSets grow in proportion to their size, and the
// rollout finishes at the new size once the new pods get ready.
func TestProportionalScaling(t *testing.T) {
	e := setup(t, 4)
	ctx := context.Background()
	_, err := e.deployments().Create(ctx, newDeployment("web", 10, "orkit.local/hello:v1")) // maxSurge and maxUnavailable 25%
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool { return e.rolledOut(t, "web") }, "first rollout")

	e.agent.SetFate(func(p *core.Pod) testnode.Fate {
		if strings.HasSuffix(p.Spec.Containers[0].Image, ":v2") {
			return testnode.NotReady
		}
		return testnode.Ready
	})
	_, err = e.deployments().Patch(ctx, "web", client.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"orkit.local/hello:v2"}]}}}}`))
	require.NoError(t, err)
	// Stuck: 13 pods at most (surge 3), 8 available at least (2 unavailable):
	// old 8, new 5.
	sizes := func() (old, nw int32) {
		d, err := e.deployments().Get(ctx, "web")
		require.NoError(t, err)
		for _, rs := range e.replicaSets(t, d) {
			if rs.Spec.Template.Spec.Containers[0].Image == "orkit.local/hello:v2" {
				nw = *rs.Spec.Replicas
			} else {
				old = *rs.Spec.Replicas
			}
		}
		return
	}
	testnode.Eventually(t, wait, func() bool { o, n := sizes(); return o == 8 && n == 5 }, "rollout stuck at old 8, new 5")

	_, err = e.deployments().Patch(ctx, "web", client.MergePatchType, []byte(`{"spec":{"replicas":20}}`))
	require.NoError(t, err)
	// 20+5 allowed, 12 more spread 8:5 → old 15, new 10.
	testnode.Eventually(t, wait, func() bool { o, n := sizes(); return o == 15 && n == 10 }, "proportionally scaled to old 15, new 10")
	d, err := e.deployments().Get(ctx, "web")
	require.NoError(t, err)
	for _, rs := range e.replicaSets(t, d) {
		assert.Equal(t, "20", rs.Annotations[apps.DesiredReplicasAnnotation], rs.Name)
		assert.Equal(t, "25", rs.Annotations[apps.MaxReplicasAnnotation], rs.Name)
	}

	e.agent.SetFate(nil)
	testnode.Eventually(t, wait, func() bool { o, n := sizes(); return o == 0 && n == 20 && e.rolledOut(t, "web") }, "rollout finished at 20")
}
