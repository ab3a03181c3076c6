package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// TestCompactionExpiresOldVersions: the API server compacts its store on
// Config.CompactionInterval, keeping one interval of history. Afterwards
// a continue token, an exact list and a watch from before the window get
// 410 Expired with kube-apiserver's wording, while recent ones work.
func TestCompactionExpiresOldVersions(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.CompactionInterval = 100 * time.Millisecond })
	for i := range 5 {
		ts.createConfigMap(t, "default", fmt.Sprintf("c%d", i), nil)
	}
	code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?limit=2", "", nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var page struct {
		Metadata meta.ListMeta `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(body, &page))
	require.NotEmpty(t, page.Metadata.Continue)
	oldRV := page.Metadata.ResourceVersion

	status := func(code int, body []byte) meta.Status {
		t.Helper()
		var st meta.Status
		require.NoError(t, json.Unmarshal(body, &st), "%d %s", code, body)
		return st
	}
	// Keep writing until the store is compacted past the first page.
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		ts.createConfigMap(t, "default", fmt.Sprintf("churn%d", i), nil)
		code, body = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?limit=2&continue="+url.QueryEscape(page.Metadata.Continue), "", nil)
		if code != http.StatusOK {
			break
		}
		require.True(t, time.Now().Before(deadline), "the continue token never expired")
		time.Sleep(20 * time.Millisecond)
	}
	st := status(code, body)
	assert.Equal(t, http.StatusGone, code)
	assert.Equal(t, meta.StatusReasonExpired, st.Reason)
	assert.Equal(t, "The provided continue parameter is too old to display a consistent list result. "+
		"You can start a new list without the continue parameter.", st.Message)

	code, body = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?resourceVersionMatch=Exact&resourceVersion="+oldRV, "", nil)
	st = status(code, body)
	assert.Equal(t, http.StatusGone, code)
	assert.Equal(t, meta.StatusReasonExpired, st.Reason)
	assert.Equal(t, "The resourceVersion for the provided list is too old.", st.Message)

	_, wcode, closeFn := ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+oldRV)
	closeFn()
	assert.Equal(t, http.StatusGone, wcode, "a watch from before the compacted revision expires, even within the cache's history")

	// Recent versions still work: a fresh paginated list continues, and a
	// watch from its resourceVersion opens.
	code, body = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?limit=2", "", nil)
	require.Equal(t, http.StatusOK, code, string(body))
	require.NoError(t, json.Unmarshal(body, &page))
	code, body = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?limit=2&continue="+url.QueryEscape(page.Metadata.Continue), "", nil)
	assert.Equal(t, http.StatusOK, code, string(body))
	_, wcode, closeFn = ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+page.Metadata.ResourceVersion)
	closeFn()
	assert.Equal(t, http.StatusOK, wcode)
}

// TestWatchExpiredWording: a watch from before the watch cache's history
// gets kube-apiserver's message, "too old resource version: X (Y)".
func TestWatchExpiredWording(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.WatchHistory = 5 })
	first := ts.createConfigMap(t, "default", "x0", nil)
	for i := 1; i < 20; i++ {
		ts.createConfigMap(t, "default", fmt.Sprintf("x%d", i), nil)
	}
	code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+rvOf(first), "", nil)
	require.Equal(t, http.StatusGone, code, string(body))
	var st meta.Status
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, meta.StatusReasonExpired, st.Reason)
	assert.Regexp(t, `^too old resource version: \d+ \(\d+\)$`, st.Message)
}
