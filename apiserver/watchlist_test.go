package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

const cmPath = "/api/v1/namespaces/default/configmaps"

// watchListQuery is what client-go's reflector sends for a watch-list.
const watchListQuery = "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=20"

// TestWatchParameterValidation: the combinations of sendInitialEvents and
// resourceVersionMatch kube-apiserver refuses on a watch are refused with
// its answer (422 Invalid ListOptions.meta.k8s.io, kube's field errors).
func TestWatchParameterValidation(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name  string
		query string
		code  int
		msg   []string
	}{
		{"sendInitialEvents without resourceVersionMatch", "?watch=1&sendInitialEvents=true", http.StatusUnprocessableEntity,
			[]string{`ListOptions.meta.k8s.io "" is invalid`, "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"}},
		{"sendInitialEvents=false without resourceVersionMatch", "?watch=1&sendInitialEvents=false", http.StatusUnprocessableEntity,
			[]string{"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"}},
		{"resourceVersionMatch without sendInitialEvents", "?watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1", http.StatusUnprocessableEntity,
			[]string{"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"}},
		{"resourceVersionMatch=Exact", "?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1", http.StatusUnprocessableEntity,
			[]string{"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan", `resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"`}},
		{"resourceVersionMatch with continue", watchListQuery + "&continue=abc", http.StatusUnprocessableEntity,
			[]string{"resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"}},
		{"unparsable resourceVersion", watchListQuery + "&resourceVersion=abc", http.StatusBadRequest, []string{`invalid resourceVersion "abc"`}},
		{"watch-list", watchListQuery, http.StatusOK, nil},
		{"watch-list from 0", watchListQuery + "&resourceVersion=0", http.StatusOK, nil},
		{"watch from now", "?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=0", http.StatusOK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.code == http.StatusOK {
				_, code, closeFn := ts.watchStream(t, cmPath+tt.query)
				closeFn()
				assert.Equal(t, tt.code, code)
				return
			}
			code, body := ts.do(t, "GET", cmPath+tt.query, "", nil)
			assert.Equal(t, tt.code, code, string(body))
			var st meta.Status
			require.NoError(t, json.Unmarshal(body, &st), string(body))
			for _, m := range tt.msg {
				assert.Contains(t, st.Message, m)
			}
		})
	}
}

// bookmarkMeta decodes the metadata of a BOOKMARK's object.
func bookmarkMeta(t *testing.T, raw json.RawMessage) meta.ObjectMeta {
	t.Helper()
	var o struct {
		Kind       string          `json:"kind"`
		APIVersion string          `json:"apiVersion"`
		Metadata   meta.ObjectMeta `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(raw, &o))
	assert.Equal(t, "ConfigMap", o.Kind)
	assert.Equal(t, "v1", o.APIVersion)
	return o.Metadata
}

// readInitial reads events up to the bookmark that ends the initial
// events and returns the names of the ADDED objects and the bookmark.
func readInitial(t *testing.T, next func() (meta.WatchEvent, error)) ([]string, meta.ObjectMeta) {
	t.Helper()
	var names []string
	for {
		ev, err := next()
		require.NoError(t, err)
		if ev.Type == meta.Bookmark {
			return names, bookmarkMeta(t, ev.Object)
		}
		require.Equal(t, meta.Added, ev.Type, "initial events are ADDED")
		name, _ := objName(t, ev.Object)
		names = append(names, name)
	}
}

// TestWatchListInitialEvents: sendInitialEvents=true streams the objects
// the selectors select as ADDED, then a BOOKMARK annotated
// k8s.io/initial-events-end at the revision they reflect, then changes
// after it, for every resourceVersion a client may send.
func TestWatchListInitialEvents(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.WatchHistory = 5 })
	first := ts.createConfigMap(t, "default", "a", nil)
	mk := func(name string, lbl map[string]string) map[string]any {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "labels": lbl}})
		code, out := ts.do(t, "POST", cmPath, "application/json", b)
		require.Equal(t, http.StatusCreated, code, string(out))
		var obj map[string]any
		require.NoError(t, json.Unmarshal(out, &obj))
		return obj
	}
	mk("b", map[string]string{"app": "x"})
	mk("c", map[string]string{"app": "y"})
	ts.createConfigMap(t, "other", "elsewhere", nil)
	for i := range 10 { // push "a" out of the 5-event history
		ts.createConfigMap(t, "other", fmt.Sprintf("o%d", i), nil)
	}
	last := mk("d", map[string]string{"app": "x"})
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"consistent", watchListQuery, []string{"a", "b", "c", "d"}},
		{"any", watchListQuery + "&resourceVersion=0", []string{"a", "b", "c", "d"}},
		{"not older than a revision inside the history", watchListQuery + "&resourceVersion=" + rvOf(last), []string{"a", "b", "c", "d"}},
		{"not older than a revision past the history (no 410)", watchListQuery + "&resourceVersion=" + rvOf(first), []string{"a", "b", "c", "d"}},
		{"label selector", watchListQuery + "&labelSelector=app%3Dx", []string{"b", "d"}},
		{"field selector", watchListQuery + "&fieldSelector=metadata.name%21%3Da", []string{"b", "c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, code, closeFn := ts.watchStream(t, cmPath+tt.query)
			require.Equal(t, http.StatusOK, code)
			defer closeFn()
			names, bm := readInitial(t, next)
			assert.Equal(t, tt.want, names)
			assert.Equal(t, map[string]string{"k8s.io/initial-events-end": "true"}, bm.Annotations)
			assert.GreaterOrEqual(t, parseRV(bm.ResourceVersion), parseRV(rvOf(last)), "the bookmark carries the revision of the state sent")
		})
	}

	// Live events follow the bookmark, newer than it; bookmarks later on
	// carry no annotation.
	next, code, closeFn := ts.watchStream(t, cmPath+watchListQuery+"&labelSelector=app%3Dx")
	require.Equal(t, http.StatusOK, code)
	defer closeFn()
	_, bm := readInitial(t, next)
	live := mk("e", map[string]string{"app": "x"})
	ev, err := next()
	require.NoError(t, err)
	assert.Equal(t, meta.Added, ev.Type)
	name, rv := objName(t, ev.Object)
	assert.Equal(t, "e", name)
	assert.Equal(t, rvOf(live), rv)
	assert.Greater(t, parseRV(rv), parseRV(bm.ResourceVersion))
	ts.srv.lookupCache(t, "configmaps").Bookmark()
	ev, err = next()
	require.NoError(t, err)
	require.Equal(t, meta.Bookmark, ev.Type)
	assert.Empty(t, bookmarkMeta(t, ev.Object).Annotations)
}

// lookupCache returns the watch cache of a core resource.
func (s *Server) lookupCache(t *testing.T, resource string) *WatchCache {
	t.Helper()
	res, ok := s.lookup(coreGVR(resource))
	require.True(t, ok, resource)
	return res.cache
}

// TestWatchListConsistentRead: without a resourceVersion the initial
// state is at least as new as the store when the request came, even when
// the last writes went to other resources (the cache of this one learns
// of them only from the store's progress events).
func TestWatchListConsistentRead(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.createConfigMap(t, "default", "a", nil)
	for i := range 3 {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": fmt.Sprintf("s%d", i)}})
		code, out := ts.do(t, "POST", "/api/v1/namespaces/default/secrets", "application/json", b)
		require.Equal(t, http.StatusCreated, code, string(out))
	}
	rev, err := ts.srv.cfg.Store.Revision(context.Background())
	require.NoError(t, err)
	next, code, closeFn := ts.watchStream(t, cmPath+watchListQuery)
	require.Equal(t, http.StatusOK, code)
	defer closeFn()
	names, bm := readInitial(t, next)
	assert.Equal(t, []string{"a"}, names)
	assert.GreaterOrEqual(t, parseRV(bm.ResourceVersion), rev, "a consistent read reflects every write before it")
}

// TestWatchListWithoutBookmarks: sendInitialEvents without
// allowWatchBookmarks sends the initial events and no bookmark, as
// kube-apiserver does; sendInitialEvents=false starts at once with no
// initial events (from now for "0", after the revision for one given).
func TestWatchListWithoutBookmarks(t *testing.T) {
	ts := newTestServer(t, nil)
	a := ts.createConfigMap(t, "default", "a", nil)
	ts.createConfigMap(t, "default", "b", nil)

	next, code, closeFn := ts.watchStream(t, cmPath+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	require.Equal(t, http.StatusOK, code)
	defer closeFn()
	nextNow, code, closeNow := ts.watchStream(t, cmPath+"?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=0")
	require.Equal(t, http.StatusOK, code)
	defer closeNow()
	nextAfter, code, closeAfter := ts.watchStream(t, cmPath+"?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion="+rvOf(a))
	require.Equal(t, http.StatusOK, code)
	defer closeAfter()
	ts.createConfigMap(t, "default", "c", nil)

	names := func(next func() (meta.WatchEvent, error), n int) []string {
		var out []string
		for range n {
			ev, err := next()
			require.NoError(t, err)
			require.NotEqual(t, meta.Bookmark, ev.Type)
			name, _ := objName(t, ev.Object)
			out = append(out, strings.ToLower(ev.Type)+":"+name)
		}
		return out
	}
	assert.Equal(t, []string{"added:a", "added:b", "added:c"}, names(next, 3))
	assert.Equal(t, []string{"added:c"}, names(nextNow, 1))
	assert.Equal(t, []string{"added:b", "added:c"}, names(nextAfter, 2))
}

// TestWatchListFeatureAdvertised: /metrics reports the WatchList feature
// as kube-apiserver does (kubernetes_feature_enabled).
func TestWatchListFeatureAdvertised(t *testing.T) {
	ts := newTestServer(t, nil)
	code, body := ts.do(t, "GET", "/metrics", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(body), `kubernetes_feature_enabled{name="WatchList",stage="BETA"} 1`)
}
