package metricsserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/metrics"
	"github.com/orkit/orkit/api/stats"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/metricsserver"
)

// fakeScraper reports, per call, a summary one second later in which
// every container used 250m of CPU and 64Mi of memory, and the node 1
// core and 1Gi.
type fakeScraper struct {
	mu   sync.Mutex
	at   time.Time
	pods map[string]stats.PodReference
}

func (f *fakeScraper) Name() string { return "fake" }

func (f *fakeScraper) Summary(_ context.Context, node string) (*stats.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at = f.at.Add(time.Second)
	secs := uint64(f.at.Unix() - 1_800_000_000)
	u := func(ns, b uint64) (*stats.CPUStats, *stats.MemoryStats) {
		return &stats.CPUStats{Time: meta.NewTime(f.at), UsageCoreNanoSeconds: &ns}, &stats.MemoryStats{Time: meta.NewTime(f.at), WorkingSetBytes: &b}
	}
	s := &stats.Summary{Node: stats.NodeStats{NodeName: node}}
	s.Node.CPU, s.Node.Memory = u(secs*1e9, 1<<30)
	for _, ref := range f.pods {
		c, m := u(secs*250e6, 64<<20)
		s.Pods = append(s.Pods, stats.PodStats{PodRef: ref, Containers: []stats.ContainerStats{{Name: "app", CPU: c, Memory: m}}})
	}
	return s, nil
}

func get(t *testing.T, h http.Handler, path string, out any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if out != nil && rec.Code == http.StatusOK {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), out), rec.Body.String())
	}
	return rec.Code
}

func TestScrapeAndServe(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	ctx := context.Background()
	_, err := client.For[core.Node](c, "").Create(ctx, &core.Node{ObjectMeta: meta.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}})
	require.NoError(t, err)
	refs := map[string]stats.PodReference{}
	for _, name := range []string{"web-1", "db-1"} {
		p, err := client.For[core.Pod](c, "default").Create(ctx, &core.Pod{
			ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name[:len(name)-2]}},
			Spec:       core.PodSpec{NodeName: "n1", Containers: []core.Container{{Name: "app", Image: "x"}}}})
		require.NoError(t, err)
		refs[name] = stats.PodReference{Name: name, Namespace: "default", UID: string(p.UID)}
	}
	fs := &fakeScraper{at: time.Unix(1_800_000_000, 0), pods: refs}
	s, err := metricsserver.New(metricsserver.Config{Client: c, Scraper: fs, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.ErrorIs(t, s.Scrape(ctx), metricsserver.ErrNotSynced, "a scrape needs the caches of nodes and pods")
	syncCtx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	require.NoError(t, s.Sync(syncCtx))

	require.NoError(t, s.Scrape(ctx))
	var nodes metrics.NodeMetricsList
	require.Equal(t, http.StatusOK, get(t, s, "/apis/metrics.k8s.io/v1beta1/nodes", &nodes))
	assert.Empty(t, nodes.Items, "one sample gives no rate")

	require.NoError(t, s.Scrape(ctx))
	require.Equal(t, http.StatusOK, get(t, s, "/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=zone%3Da", &nodes))
	require.Len(t, nodes.Items, 1)
	cpu, mem := nodes.Items[0].Usage[core.ResourceCPU], nodes.Items[0].Usage[core.ResourceMemory]
	assert.Equal(t, int64(1000), cpu.MilliValue())
	assert.Equal(t, "1Gi", mem.String())
	assert.Equal(t, time.Second, nodes.Items[0].Window.Duration)

	var pm metrics.PodMetrics
	require.Equal(t, http.StatusOK, get(t, s, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-1", &pm))
	cpu = pm.Containers[0].Usage[core.ResourceCPU]
	assert.Equal(t, int64(250), cpu.MilliValue())
	var pods metrics.PodMetricsList
	require.Equal(t, http.StatusOK, get(t, s, "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Ddb", &pods))
	require.Len(t, pods.Items, 1)
	assert.Equal(t, "db-1", pods.Items[0].Name)
	require.Equal(t, http.StatusOK, get(t, s, "/apis/metrics.k8s.io/v1beta1/pods", &pods))
	assert.Len(t, pods.Items, 2)

	var disc map[string]any
	require.Equal(t, http.StatusOK, get(t, s, "/apis/metrics.k8s.io/v1beta1", &disc))
	assert.Equal(t, "APIResourceList", disc["kind"])
	assert.Equal(t, http.StatusNotFound, get(t, s, "/apis/metrics.k8s.io/v1beta1/namespaces/other/pods/web-1", nil))
	assert.Equal(t, http.StatusNotFound, get(t, s, "/apis/metrics.k8s.io/v1beta1/nodes/n1/extra", nil))
	assert.Equal(t, http.StatusBadRequest, get(t, s, "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=a%3D%3D%3Db", nil))
	assert.Equal(t, http.StatusNotFound, get(t, s, "/apis/other/v1/pods", nil))

	_, err = metricsserver.New(metricsserver.Config{})
	assert.ErrorIs(t, err, metricsserver.ErrInvalidConfig)
	assert.ErrorIs(t, metricsserver.Register(ctx, c, metricsserver.Registration{}), metricsserver.ErrInvalidConfig)
}
