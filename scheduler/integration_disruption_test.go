package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
)

// TestIntegrationPreemptionMarksDisruptionTarget: a victim is marked
// DisruptionTarget=True (reason PreemptionByScheduler) before it is
// deleted, as kube-scheduler does; the conformance spec "validates pod
// disruption condition is added to the preempted pod" keeps the victim
// with a finalizer and reads the condition.
func TestIntegrationPreemptionMarksDisruptionTarget(t *testing.T) {
	tests := []struct {
		name   string
		victim func(p *core.Pod)
	}{
		{"kept by a finalizer", func(p *core.Pod) { p.Finalizers = []string{"example.com/test-finalizer"} }},
		{"terminating with a grace period", func(p *core.Pod) {
			grace := int64(60)
			p.Spec.TerminationGracePeriodSeconds = &grace
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := simcluster.Start(t)
			ctx := context.Background()
			require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("only", "z", "1", "2Gi")}, 1))
			startScheduler(t, c, scheduler.Config{})
			victim := withClass(t, c, simcluster.Pod("victim", "800m", ""), 0)
			tt.victim(victim)
			require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{victim}, 1))
			waitBound(t, c.Admin, 1, 20*time.Second)

			high := withClass(t, c, simcluster.Pod("high", "800m", ""), 1000)
			require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{high}, 1))
			var got *core.Pod
			waitFor(t, 20*time.Second, "victim terminating", func() bool {
				p, err := getPod(t, c.Admin, "victim")
				got = p
				return err == nil && p.DeletionTimestamp != nil
			})
			_, cond := core.GetPodCondition(&got.Status, core.DisruptionTarget)
			require.NotNil(t, cond, "victim has a DisruptionTarget condition")
			assert.Equal(t, meta.ConditionTrue, cond.Status)
			assert.Equal(t, core.PodReasonPreemptionByScheduler, cond.Reason)
			assert.Equal(t, "default-scheduler: preempting to accommodate a higher priority pod", cond.Message)
		})
	}
}
