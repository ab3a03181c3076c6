package client

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// fakeDiscovery serves /api, /apis and resource lists from a table that a
// test may change, and counts discovery requests.
type fakeDiscovery struct {
	mu        sync.Mutex
	groups    []APIGroup
	resources map[string][]APIResource // "v1" or "group/version"
}

func newFakeDiscovery() *fakeDiscovery {
	gv := func(g, v string) GroupVersionForDiscovery {
		return GroupVersionForDiscovery{GroupVersion: g + "/" + v, Version: v}
	}
	return &fakeDiscovery{
		groups: []APIGroup{
			{Name: "apps", Versions: []GroupVersionForDiscovery{gv("apps", "v1"), gv("apps", "v1beta1")}, PreferredVersion: gv("apps", "v1")},
			{Name: "widgets.example.com", Versions: []GroupVersionForDiscovery{gv("widgets.example.com", "v1"), gv("widgets.example.com", "v1alpha1")},
				PreferredVersion: gv("widgets.example.com", "v1alpha1")},
			{Name: "events.k8s.io", Versions: []GroupVersionForDiscovery{gv("events.k8s.io", "v1")}, PreferredVersion: gv("events.k8s.io", "v1")},
		},
		resources: map[string][]APIResource{
			"v1": {
				{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", ShortNames: []string{"po"}, Verbs: []string{"get"}},
				{Name: "pods/status", Namespaced: true, Kind: "Pod"},
				{Name: "nodes", SingularName: "node", Kind: "Node", ShortNames: []string{"no"}},
				{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", ShortNames: []string{"ev"}},
			},
			"apps/v1": {
				{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", ShortNames: []string{"deploy"}},
			},
			"apps/v1beta1": {
				{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", ShortNames: []string{"deploy"}},
				{Name: "legacies", SingularName: "legacy", Namespaced: true, Kind: "Legacy"},
			},
			"widgets.example.com/v1":       {{Name: "widgets", SingularName: "widget", Kind: "Widget"}},
			"widgets.example.com/v1alpha1": {{Name: "widgets", SingularName: "widget", Kind: "Widget"}},
			"events.k8s.io/v1":             {{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", ShortNames: []string{"ev"}}},
		},
	}
}

func (f *fakeDiscovery) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case p == "/api":
		writeObject(w, 200, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
	case p == "/apis":
		writeObject(w, 200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": f.groups})
	default:
		gv := strings.TrimPrefix(strings.TrimPrefix(p, "/apis/"), "/api/")
		res, ok := f.resources[gv]
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeObject(w, 200, APIResourceList{Kind: "APIResourceList", APIVersion: "v1", GroupVersion: gv, Resources: res})
	}
}

func (f *fakeDiscovery) add(gv string, r APIResource) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resources[gv] = append(f.resources[gv], r)
}

func newDiscoveryServer(t testing.TB) (*fakeDiscovery, *countingServer) {
	fd := newFakeDiscovery()
	return fd, newCountingServer(t, fd.serve)
}

func TestRESTMapperForResource(t *testing.T) {
	_, srv := newDiscoveryServer(t)
	c, _ := newTestClient(t, srv.URL)
	ctx := context.Background()
	tests := []struct {
		in   string
		want meta.GroupVersionResource
		ns   bool
	}{
		{"pods", meta.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{"po", meta.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{"Pod", meta.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{"pods.v1", meta.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{"no", meta.GroupVersionResource{Version: "v1", Resource: "nodes"}, false},
		{"deploy", meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
		{"deployments.apps", meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
		{"deployment.v1beta1.apps", meta.GroupVersionResource{Group: "apps", Version: "v1beta1", Resource: "deployments"}, true},
		{"legacy", meta.GroupVersionResource{Group: "apps", Version: "v1beta1", Resource: "legacies"}, true},
		{"widgets", meta.GroupVersionResource{Group: "widgets.example.com", Version: "v1alpha1", Resource: "widgets"}, false},
		{"widgets.v1.widgets.example.com", meta.GroupVersionResource{Group: "widgets.example.com", Version: "v1", Resource: "widgets"}, false},
		{"ev", meta.GroupVersionResource{Version: "v1", Resource: "events"}, true},
		{"events.events.k8s.io", meta.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, err := c.RESTMapper().ForResource(ctx, tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.Resource)
			assert.Equal(t, tt.ns, m.Namespaced)
		})
	}
	for _, bad := range []string{"nope", "pods/status", "deploy.batch", "pods.v2", ""} {
		_, err := c.RESTMapper().ForResource(ctx, bad)
		assert.Error(t, err, bad)
	}
	_, err := c.RESTMapper().ForResource(ctx, "nope")
	assert.ErrorIs(t, err, ErrNoMatch)
}

// TestRESTMapperVersionNegotiation: without a version the group's
// preferred version that serves the kind wins.
func TestRESTMapperVersionNegotiation(t *testing.T) {
	_, srv := newDiscoveryServer(t)
	c, _ := newTestClient(t, srv.URL)
	ctx := context.Background()
	tests := []struct {
		in   meta.GroupVersionKind
		want meta.GroupVersionResource
	}{
		{meta.GroupVersionKind{Group: "apps", Kind: "Deployment"}, meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
		{meta.GroupVersionKind{Group: "apps", Version: "v1beta1", Kind: "Deployment"}, meta.GroupVersionResource{Group: "apps", Version: "v1beta1", Resource: "deployments"}},
		{meta.GroupVersionKind{Group: "apps", Kind: "Legacy"}, meta.GroupVersionResource{Group: "apps", Version: "v1beta1", Resource: "legacies"}},
		{meta.GroupVersionKind{Group: "widgets.example.com", Kind: "Widget"}, meta.GroupVersionResource{Group: "widgets.example.com", Version: "v1alpha1", Resource: "widgets"}},
		{meta.GroupVersionKind{Kind: "Pod"}, meta.GroupVersionResource{Version: "v1", Resource: "pods"}},
	}
	for _, tt := range tests {
		t.Run(tt.in.String(), func(t *testing.T) {
			m, err := c.RESTMapper().ForKind(ctx, tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.Resource)
			assert.Equal(t, tt.want.Version, m.Kind.Version)
		})
	}
	m, err := c.RESTMapper().ForGroupVersionResource(ctx, meta.GroupVersionResource{Group: "apps", Resource: "deployments"})
	require.NoError(t, err)
	assert.Equal(t, meta.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, m.Kind)
	_, err = c.RESTMapper().ForKind(ctx, meta.GroupVersionKind{Group: "apps", Version: "v2", Kind: "Deployment"})
	assert.ErrorIs(t, err, ErrNoMatch)
}

// TestDiscoveryDiskCache: a second client on the same cache directory
// answers from disk without asking the server, until the TTL passes.
func TestDiscoveryDiskCache(t *testing.T) {
	_, srv := newDiscoveryServer(t)
	dir := t.TempDir()
	ctx := context.Background()
	c1, _ := newTestClient(t, srv.URL, WithDiscoveryCache(dir, time.Hour))
	_, err := c1.RESTMapper().ForResource(ctx, "deploy")
	require.NoError(t, err)
	warm := srv.n.Load()
	assert.Equal(t, int64(2+6), warm, "/api, /apis and the 6 group versions")
	host := hostDir(strings.TrimPrefix(srv.URL, "http://"))
	for _, f := range []string{"servergroups.json", "v1/serverresources.json", "apps/v1/serverresources.json", "apps/v1beta1/serverresources.json"} {
		assert.FileExists(t, filepath.Join(dir, host, f))
	}

	c2, fc2 := newTestClient(t, srv.URL, WithDiscoveryCache(dir, time.Hour))
	m, err := c2.RESTMapper().ForResource(ctx, "deploy")
	require.NoError(t, err)
	assert.Equal(t, "deployments", m.Resource.Resource)
	assert.Equal(t, warm, srv.n.Load(), "cache hit: no request")

	fc2.Advance(time.Hour + time.Second)
	groups, err := c2.Discovery().ServerGroups(ctx)
	require.NoError(t, err)
	assert.Len(t, groups, 4)
	assert.Equal(t, warm+2, srv.n.Load(), "expired: /api and /apis asked again")
}

// TestDiscoveryInvalidateOnMiss: a resource added after the cache was
// written is found: the miss invalidates the cache and discovery runs
// again. A name that is still missing fails with ErrNoMatch.
func TestDiscoveryInvalidateOnMiss(t *testing.T) {
	fd, srv := newDiscoveryServer(t)
	dir := t.TempDir()
	ctx := context.Background()
	c, _ := newTestClient(t, srv.URL, WithDiscoveryCache(dir, time.Hour))
	_, err := c.RESTMapper().ForResource(ctx, "pods")
	require.NoError(t, err)
	warm := srv.n.Load()

	fd.add("apps/v1", APIResource{Name: "crontabs", SingularName: "crontab", Namespaced: true, Kind: "CronTab", ShortNames: []string{"ct"}})
	m, err := c.RESTMapper().ForResource(ctx, "ct")
	require.NoError(t, err)
	assert.Equal(t, meta.GroupVersionKind{Group: "apps", Version: "v1", Kind: "CronTab"}, m.Kind)
	assert.Equal(t, 2*warm, srv.n.Load(), "one full rediscovery")

	c2, _ := newTestClient(t, srv.URL, WithDiscoveryCache(dir, time.Hour))
	_, err = c2.RESTMapper().ForResource(ctx, "ct")
	require.NoError(t, err, "the refreshed cache was written back to disk")
	assert.Equal(t, 2*warm, srv.n.Load())

	_, err = c.RESTMapper().ForResource(ctx, "nothing")
	assert.ErrorIs(t, err, ErrNoMatch)
}

// TestDiscoveryCorruptCache: an unreadable cache file is ignored and
// replaced.
func TestDiscoveryCorruptCache(t *testing.T) {
	_, srv := newDiscoveryServer(t)
	dir := t.TempDir()
	host := hostDir(strings.TrimPrefix(srv.URL, "http://"))
	writeFile(t, filepath.Join(dir, host, "servergroups.json"), "{not json")
	c, _ := newTestClient(t, srv.URL, WithDiscoveryCache(dir, time.Hour))
	groups, err := c.Discovery().ServerGroups(context.Background())
	require.NoError(t, err)
	assert.Len(t, groups, 4)
	b, err := os.ReadFile(filepath.Join(dir, host, "servergroups.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"widgets.example.com"`)
}

func TestDiscoveryMemoryOnly(t *testing.T) {
	_, srv := newDiscoveryServer(t)
	c, fc := newTestClient(t, srv.URL)
	ctx := context.Background()
	for range 3 {
		_, err := c.Discovery().ServerResources(ctx, meta.GroupVersion{Group: "apps", Version: "v1"})
		require.NoError(t, err)
	}
	assert.Equal(t, int64(1), srv.n.Load())
	fc.Advance(11 * time.Minute) // past the default TTL
	_, err := c.Discovery().ServerResources(ctx, meta.GroupVersion{Group: "apps", Version: "v1"})
	require.NoError(t, err)
	assert.Equal(t, int64(2), srv.n.Load())
	_, err = c.Discovery().ServerResources(ctx, meta.GroupVersion{Group: "..", Version: "v1"})
	assert.ErrorIs(t, err, ErrRequest)
}

func TestHostDir(t *testing.T) {
	assert.Equal(t, "127.0.0.1_6443", hostDir("127.0.0.1:6443"))
	assert.Equal(t, "example.com_6443_prefix", hostDir("example.com:6443/prefix/"))
	assert.Equal(t, "_..", hostDir(".."))
	assert.Equal(t, "_", hostDir(""))
}

// FuzzForResource: any name resolves to a mapping whose names match it, or
// to a typed error; nothing panics.
func FuzzForResource(f *testing.F) {
	for _, s := range []string{"po", "deployments.apps", "deploy.v1beta1.apps", "pods.v1", "widgets.v1.widgets.example.com", "..", ".v1.", "Pod"} {
		f.Add(s)
	}
	_, srv := newDiscoveryServer(f)
	c, err := New(&Config{Host: srv.URL, QPS: -1}, WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(f, err)
	_, err = c.RESTMapper().ForResource(context.Background(), "po")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, name string) {
		m, err := c.RESTMapper().ForResource(context.Background(), name)
		if err != nil {
			if !errors.Is(err, ErrNoMatch) && !errors.Is(err, ErrRequest) {
				t.Fatalf("untyped error for %q: %v", name, err)
			}
			return
		}
		res, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(name)), ".")
		if !namesMatch(&m, res) {
			t.Fatalf("%q resolved to %+v", name, m)
		}
	})
}
