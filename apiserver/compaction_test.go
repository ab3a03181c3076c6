package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store"
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
	assert.Equal(t, continueInconsistent, st.Message)
	assert.NotEmpty(t, st.Continue, "the 410 carries a token for the rest of the list")

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

// TestContinueAfterCompaction follows the conformance spec "should support
// continue listing from the last key if the original version has been
// compacted away": a continue token of a compacted revision gets 410 with
// a fresh token in its metadata, which lists the rest of the list after
// the same key at a newer revision, each page with a remainingItemCount
// that counts only the items after it.
func TestContinueAfterCompaction(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.CompactionInterval = 100 * time.Millisecond })
	const total, limit = 10, 3
	for i := range total {
		ts.createConfigMap(t, "default", fmt.Sprintf("t%02d", i), nil)
	}
	type page struct {
		Metadata meta.ListMeta `json:"metadata"`
		Items    []struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	list := func(cont string) (int, page, meta.Status) {
		t.Helper()
		code, body := ts.do(t, "GET", fmt.Sprintf("/api/v1/namespaces/default/configmaps?limit=%d&continue=%s", limit, url.QueryEscape(cont)), "", nil)
		var p page
		var st meta.Status
		if code == http.StatusOK {
			require.NoError(t, json.Unmarshal(body, &p), string(body))
		} else {
			require.NoError(t, json.Unmarshal(body, &st), string(body))
		}
		return code, p, st
	}
	code, first, _ := list("")
	require.Equal(t, http.StatusOK, code)
	require.NotNil(t, first.Metadata.RemainingItemCount)
	assert.Equal(t, int64(total-limit), *first.Metadata.RemainingItemCount)

	// Write elsewhere (another namespace: not part of this list) until the
	// first page's revision is compacted away.
	var expired meta.Status
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		ts.createConfigMap(t, "kube-system", fmt.Sprintf("churn%d", i), nil)
		if code, _, expired = list(first.Metadata.Continue); code != http.StatusOK {
			require.Equal(t, http.StatusGone, code)
			break
		}
		require.True(t, time.Now().Before(deadline), "the continue token never expired")
		time.Sleep(20 * time.Millisecond)
	}
	assert.Equal(t, meta.StatusReasonExpired, expired.Reason)
	assert.Equal(t, continueInconsistent, expired.Message)
	require.NotEmpty(t, expired.Continue)

	found, cont := limit, expired.Continue
	for cont != "" {
		code, p, st := list(cont)
		require.Equal(t, http.StatusOK, code, st.Message)
		assert.NotEqual(t, first.Metadata.ResourceVersion, p.Metadata.ResourceVersion, "the rest is read at a newer revision")
		for _, it := range p.Items {
			assert.Equal(t, fmt.Sprintf("t%02d", found), it.Metadata.Name)
			found++
		}
		if p.Metadata.Continue == "" {
			assert.Nil(t, p.Metadata.RemainingItemCount)
		} else {
			require.NotNil(t, p.Metadata.RemainingItemCount)
			assert.Equal(t, int64(total), *p.Metadata.RemainingItemCount+int64(found), "remainingItemCount counts only what follows the page")
		}
		cont = p.Metadata.Continue
	}
	assert.Equal(t, total, found)
}

// TestRemainingItemCountUnderSelector: a page of a list with a label or
// field selector leaves remainingItemCount unset (how many of the rest
// match is unknown), as kube-apiserver does; without one it counts the
// rest.
func TestRemainingItemCountUnderSelector(t *testing.T) {
	ts := newTestServer(t, nil)
	for i := range 6 {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("c%d", i), "labels": map[string]string{"half": strconv.Itoa(i % 2)}}})
		code, out := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json", b)
		require.Equal(t, http.StatusCreated, code, string(out))
	}
	for _, tc := range []struct {
		query string
		want  *int64
	}{
		{"limit=2", ptrTo(int64(4))},
		{"limit=1&labelSelector=half%3D1", nil},
		{"limit=1&fieldSelector=metadata.name%21%3Dc0", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?"+tc.query, "", nil)
			require.Equal(t, http.StatusOK, code, string(body))
			var l struct {
				Metadata meta.ListMeta `json:"metadata"`
			}
			require.NoError(t, json.Unmarshal(body, &l))
			assert.NotEmpty(t, l.Metadata.Continue, "more pages")
			assert.Equal(t, tc.want, l.Metadata.RemainingItemCount)
		})
	}
}

// compactingStore compacts its store past every revision read so far on
// the first List that continues a page, as a compactor running between
// two pages of one list would.
type compactingStore struct {
	store.Interface
	once sync.Once
}

func (s *compactingStore) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	if opts.Continue != "" && strings.Contains(prefix, "/configmaps/") {
		s.once.Do(func() {
			rev, err := s.Create(ctx, "/test/bump", []byte("x"))
			if err == nil {
				err = s.Compact(ctx, rev)
			}
			if err != nil {
				panic(err)
			}
		})
	}
	return s.Interface.List(ctx, prefix, opts)
}

// TestFreshListOutlivesCompaction: a paginated list with a selector reads
// several store pages at one revision; when a compaction removes that
// revision between them, a list the client started without a continue
// token starts again at the latest revision rather than answering 410.
// (A client's own continue token still expires:
// TestCompactionExpiresOldVersions.)
func TestFreshListOutlivesCompaction(t *testing.T) {
	var cs *compactingStore
	ts := newTestServer(t, func(c *Config) {
		cs = &compactingStore{Interface: c.Store}
		c.Store = cs
		c.CompactionInterval = -1
	})
	for i := range 6 {
		b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("c%d", i),
			"labels": map[string]string{"keep": strconv.FormatBool(i >= 4)}}})
		code, out := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json", b)
		require.Equal(t, http.StatusCreated, code, string(out))
	}
	code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?limit=2&labelSelector=keep%3Dtrue", "", nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var list struct {
		Metadata meta.ListMeta `json:"metadata"`
		Items    []struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(body, &list))
	var names []string
	for _, it := range list.Items {
		names = append(names, it.Metadata.Name)
	}
	assert.Equal(t, []string{"c4", "c5"}, names, "every matching item, from the restarted list")
	rv, err := strconv.ParseInt(list.Metadata.ResourceVersion, 10, 64)
	require.NoError(t, err)
	compacted, err := cs.Revision(context.Background())
	require.NoError(t, err)
	assert.Equal(t, compacted, rv, "the list is read at the revision after the compaction")
}
