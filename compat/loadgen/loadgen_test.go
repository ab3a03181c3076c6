package loadgen_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/compat/internal/cluster"
	"github.com/orkit/orkit/compat/loadgen"
)

// figure parses a numeric figure of r.
func figure(t *testing.T, r *loadgen.Result, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(r.Figure(name), 64)
	require.NoError(t, err, "%s in %s", name, r)
	return v
}

// TestModesSmoke runs every mode at a small size against an in-process
// orkit (with its scheduler) and checks the counts each reports, not its
// timings.
func TestModesSmoke(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Scheduler: true})
	ctx := context.Background()
	base := loadgen.Config{REST: c.RESTConfig(), N: 200, Workers: 8}

	r, err := loadgen.Creates(ctx, base)
	require.NoError(t, err)
	t.Log(r)
	assert.Equal(t, 200.0, figure(t, r, "objects"))
	assert.Positive(t, figure(t, r, "per_second"))

	own := base
	own.OwnConnections = true
	r, err = loadgen.Creates(ctx, own)
	require.NoError(t, err)
	assert.Equal(t, "true", r.Figure("own_connections"))

	r, err = loadgen.WatchLatency(ctx, loadgen.WatchConfig{Config: base, Watchers: 5, Writes: 20, Interval: 5 * time.Millisecond})
	require.NoError(t, err)
	t.Log(r)
	assert.Equal(t, 5.0, figure(t, r, "connections"), "each watcher dials its own connection")
	assert.Equal(t, 100.0, figure(t, r, "events"))
	assert.Zero(t, figure(t, r, "missing"))

	r, err = loadgen.InformerSync(ctx, base)
	require.NoError(t, err)
	t.Log(r)
	assert.Equal(t, 200.0, figure(t, r, "objects"))

	r, err = loadgen.Schedule(ctx, loadgen.ScheduleConfig{Config: loadgen.Config{REST: c.RESTConfig(), N: 50, Workers: 8},
		Nodes: 10, LeaseInterval: time.Second, Timeout: 2 * time.Minute})
	require.NoError(t, err)
	t.Log(r)
	assert.Equal(t, 50.0, figure(t, r, "pods"))
	assert.Equal(t, 10.0, figure(t, r, "nodes"))

	r, err = loadgen.PodRelist(ctx, loadgen.Config{REST: c.RESTConfig(), N: 50})
	require.NoError(t, err, "the schedule mode's 50 pods are the cluster's only pods")
	t.Log(r)
	assert.Equal(t, 50.0, figure(t, r, "pods"))
	_, err = loadgen.PodRelist(ctx, loadgen.Config{REST: c.RESTConfig(), N: 51})
	assert.ErrorContains(t, err, "synced with 50 pods, want 51")

	_, err = loadgen.Creates(ctx, loadgen.Config{})
	assert.ErrorIs(t, err, loadgen.ErrInvalidConfig)
	_, err = loadgen.PodRelist(ctx, loadgen.Config{})
	assert.ErrorIs(t, err, loadgen.ErrInvalidConfig)
}
