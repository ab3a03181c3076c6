package controller

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/stretchr/testify/require"
)

// TestMetricsLint checks the collectors' names and help against
// Prometheus' conventions, and that they register on a pedantic registry.
func TestMetricsLint(t *testing.T) {
	c, err := New("lint", ReconcilerFunc(nil), Config{})
	require.NoError(t, err)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c.Metrics()))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	require.NoError(t, err)
	require.Empty(t, problems)
}
