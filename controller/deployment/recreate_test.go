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
	"github.com/orkit/orkit/controller/deployment"
	"github.com/orkit/orkit/internal/testnode"
)

// TestRecreatePausedDeadline: Recreate never runs old and new pods
// together; a paused Deployment does not roll out; a rollout whose pods
// never get ready exceeds its progress deadline.
func TestRecreatePausedDeadline(t *testing.T) {
	e := setup(t, 2)
	ctx := context.Background()
	d := newDeployment("db", 2, "orkit.local/hello:v1")
	d.Spec.Strategy = apps.DeploymentStrategy{Type: apps.RecreateDeploymentStrategyType}
	_, err := e.deployments().Create(ctx, d)
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool { return e.rolledOut(t, "db") }, "first rollout")

	// Recreate: at no event do pods of both templates live together.
	w := watchTemplates(t, e.c, "db")
	_, err = e.deployments().Patch(ctx, "db", client.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"orkit.local/hello:v2"}]}}}}`))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		got, err := e.deployments().Get(ctx, "db")
		return err == nil && got.Annotations[apps.RevisionAnnotation] == "2" && e.rolledOut(t, "db")
	}, "recreate rollout")
	assert.False(t, w.mixed(), "old and new pods never ran together")

	// Paused: a template change waits for resume.
	_, err = e.deployments().Patch(ctx, "db", client.MergePatchType, []byte(`{"spec":{"paused":true}}`))
	require.NoError(t, err)
	_, err = e.deployments().Patch(ctx, "db", client.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"orkit.local/hello:v3"}]}}}}`))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		got, err := e.deployments().Get(ctx, "db")
		c := deployment.GetCondition(&got.Status, apps.DeploymentProgressing)
		return err == nil && got.Status.ObservedGeneration == got.Generation && c != nil && c.Reason == apps.PausedDeployReason
	}, "paused observed")
	got, err := e.deployments().Get(ctx, "db")
	require.NoError(t, err)
	assert.Len(t, e.replicaSets(t, got), 2, "no ReplicaSet while paused")

	// Resume with pods that never get ready and a 2s deadline.
	e.agent.SetFate(func(p *core.Pod) testnode.Fate {
		if strings.Contains(p.Spec.Containers[0].Image, "v3") {
			return testnode.NotReady
		}
		return testnode.Ready
	})
	_, err = e.deployments().Patch(ctx, "db", client.MergePatchType, []byte(`{"spec":{"paused":false,"progressDeadlineSeconds":2}}`))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		got, err := e.deployments().Get(ctx, "db")
		c := deployment.GetCondition(&got.Status, apps.DeploymentProgressing)
		return err == nil && c != nil && c.Reason == apps.TimedOutReason && c.Status == "False"
	}, "ProgressDeadlineExceeded")
	got, err = e.deployments().Get(ctx, "db")
	require.NoError(t, err)
	assert.Len(t, e.replicaSets(t, got), 3)
	c := deployment.GetCondition(&got.Status, apps.DeploymentAvailable)
	require.NotNil(t, c)
	assert.Equal(t, apps.MinimumReplicasUnavailable, c.Reason)
}

type templateWatch struct {
	stop  func()
	w     *podWatch
	mixes func() bool
}

func (tw *templateWatch) mixed() bool { tw.stop(); return tw.mixes() }

// watchTemplates records whether live pods of two pod-template-hashes
// were ever seen at once.
func watchTemplates(t *testing.T, c *client.Client, app string) *templateWatch {
	w, stop := watchPods(t, c, app, 1<<30, 0)
	var mixed bool
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onEvent = func(pods map[string]*core.Pod) {
		hashes := map[string]bool{}
		for _, p := range pods {
			if p.DeletionTimestamp == nil {
				hashes[p.Labels[apps.DefaultDeploymentUniqueLabelKey]] = true
			}
		}
		if len(hashes) > 1 {
			mixed = true
		}
	}
	return &templateWatch{stop: stop, w: w, mixes: func() bool { w.mu.Lock(); defer w.mu.Unlock(); return mixed }}
}
