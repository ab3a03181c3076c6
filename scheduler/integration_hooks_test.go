package scheduler_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/internal/simcluster"
	"github.com/orkit/orkit/scheduler"
	"github.com/orkit/orkit/scheduler/framework"
	"github.com/orkit/orkit/scheduler/plugins"
)

// hooks is one plugin with Reserve, Permit and Bind: it holds pods
// labelled gate=yes at Permit, and blocks the binding of pod "slow" until
// release is closed (then skips to the default binder).
type hooks struct {
	mu       sync.Mutex
	reserved []string
	release  chan struct{}
}

func (h *hooks) Name() string { return "Hooks" }

func (h *hooks) Reserve(_ context.Context, _ *framework.CycleState, p *core.Pod, _ string) *framework.Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reserved = append(h.reserved, p.Name)
	return nil
}

func (h *hooks) Unreserve(context.Context, *framework.CycleState, *core.Pod, string) {}

func (h *hooks) Permit(_ context.Context, _ *framework.CycleState, p *core.Pod, _ string) (*framework.Status, time.Duration) {
	if p.Labels["gate"] == "yes" {
		return framework.NewStatus(framework.Wait), time.Minute
	}
	return nil, 0
}

func (h *hooks) Bind(ctx context.Context, _ *framework.CycleState, p *core.Pod, _ string) *framework.Status {
	if p.Name == "slow" {
		select {
		case <-h.release:
		case <-ctx.Done():
			return framework.AsStatus(ctx.Err())
		}
	}
	return framework.NewStatus(framework.Skip)
}

func (h *hooks) reservedNames() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.reserved...)
}

// TestIntegrationHooks checks Reserve, Permit (wait, then Allow) and a Bind
// plugin, and that binding is asynchronous: while pod "slow" is stuck in
// its binding, later pods are scheduled and bound.
func TestIntegrationHooks(t *testing.T) {
	c := simcluster.Start(t)
	ctx := context.Background()
	require.NoError(t, simcluster.CreateNodes(ctx, c.Admin, []*core.Node{simcluster.Node("n", "z", "8", "8Gi")}, 1))
	h := &hooks{release: make(chan struct{})}
	prof := plugins.DefaultProfile("")
	prof.Plugins = []framework.Plugin{h}
	s := startScheduler(t, c, scheduler.Config{Profiles: []framework.Profile{prof}})

	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{simcluster.Pod("slow", "100m", "")}, 1))
	waitFor(t, 10*time.Second, "slow reserved", func() bool { return len(h.reservedNames()) == 1 })
	gated := simcluster.Pod("gated", "100m", "")
	gated.Labels["gate"] = "yes"
	require.NoError(t, simcluster.CreateAll(ctx, c.Admin, "default", []*core.Pod{simcluster.Pod("fast", "100m", ""), gated}, 1))
	waitFor(t, 10*time.Second, "fast bound while slow is in flight", func() bool {
		p, err := getPod(t, c.Admin, "fast")
		return err == nil && p.Spec.NodeName == "n"
	})
	p, err := getPod(t, c.Admin, "slow")
	require.NoError(t, err)
	assert.Empty(t, p.Spec.NodeName, "slow is still binding")
	p, err = getPod(t, c.Admin, "gated")
	require.NoError(t, err)
	assert.Empty(t, p.Spec.NodeName, "gated waits at Permit")

	close(h.release)
	waitFor(t, 10*time.Second, "gated allowed", func() bool {
		g, err := getPod(t, c.Admin, "gated")
		require.NoError(t, err)
		return s.Framework("").Allow(g.UID)
	})
	waitBound(t, c.Admin, 3, 10*time.Second)
	assert.ElementsMatch(t, []string{"slow", "fast", "gated"}, h.reservedNames())
}

func TestNewRejectsBadConfig(t *testing.T) {
	_, err := scheduler.New(scheduler.Config{})
	assert.ErrorIs(t, err, scheduler.ErrInvalidConfig)
	c := simcluster.Start(t)
	_, err = scheduler.New(scheduler.Config{Client: c.Scheduler, Profiles: []framework.Profile{plugins.DefaultProfile(""), plugins.DefaultProfile("default-scheduler")}})
	assert.ErrorIs(t, err, scheduler.ErrInvalidConfig, "two profiles for one name")
	_, err = scheduler.New(scheduler.Config{Client: c.Scheduler, Profiles: []framework.Profile{{PercentageOfNodesToScore: -1}}})
	assert.ErrorIs(t, err, scheduler.ErrInvalidConfig)
	assert.ErrorIs(t, err, framework.ErrInvalidProfile)
}
