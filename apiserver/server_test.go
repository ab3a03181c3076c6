package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/authz"
	"github.com/orkit/orkit/pki"
	"github.com/orkit/orkit/store/bbolt"
)

// testServer is an API server on a bbolt store in a temp dir, with an
// admin HTTP client (system:masters certificate).
type testServer struct {
	srv  *Server
	url  string
	http *http.Client
	anon *http.Client
	ca   *pki.CA
}

func newTestServer(t testing.TB, tweak func(*Config)) *testServer {
	t.Helper()
	ca, err := pki.NewCA("test-ca")
	require.NoError(t, err)
	st, err := bbolt.Open(t.TempDir()+"/store.db", nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	serving, err := ca.IssueServing("apiserver", nil, []net.IP{net.ParseIP("127.0.0.1")})
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	require.NoError(t, err)
	cfg := Config{Listen: "127.0.0.1:0", Store: st, Scheme: api.NewScheme(), TLS: &cert, ClientCA: ca.Pool(),
		Authenticator: authn.Union(false, authn.X509(ca.Pool())), Bootstrap: true}
	if tweak != nil {
		tweak(&cfg)
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	require.NoError(t, srv.Start(ctx))
	select {
	case <-srv.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("caches did not sync")
	}
	admin, err := ca.IssueClient("admin", "system:masters")
	require.NoError(t, err)
	clientCert, err := tls.X509KeyPair(admin.CertPEM, admin.KeyPEM)
	require.NoError(t, err)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{clientCert}}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	anonTr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}
	t.Cleanup(anonTr.CloseIdleConnections)
	return &testServer{srv: srv, url: "https://" + srv.Addr().String(), http: &http.Client{Transport: tr}, anon: &http.Client{Transport: anonTr}, ca: ca}
}

// do sends a request and returns the status code and body.
func (ts *testServer) do(t *testing.T, method, path, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, bytes.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

func (ts *testServer) createConfigMap(t *testing.T, ns, name string, data map[string]string) map[string]any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": data})
	code, out := ts.do(t, "POST", "/api/v1/namespaces/"+ns+"/configmaps", "application/json", b)
	require.Equal(t, http.StatusCreated, code, string(out))
	var obj map[string]any
	require.NoError(t, json.Unmarshal(out, &obj))
	return obj
}

func rvOf(obj map[string]any) string {
	return obj["metadata"].(map[string]any)["resourceVersion"].(string)
}

// watchStream opens a watch and returns a function reading the next event.
func (ts *testServer) watchStream(t *testing.T, path string) (next func() (meta.WatchEvent, error), code int, closeFn func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", ts.url+path, nil)
	require.NoError(t, err)
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode, func() {}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	return func() (meta.WatchEvent, error) {
		var ev meta.WatchEvent
		if !sc.Scan() {
			if sc.Err() != nil {
				return ev, sc.Err()
			}
			return ev, io.EOF
		}
		return ev, json.Unmarshal(sc.Bytes(), &ev)
	}, resp.StatusCode, func() { cancel(); resp.Body.Close() }
}

func objName(t *testing.T, raw json.RawMessage) (name, rv string) {
	var o struct {
		Metadata meta.ObjectMeta `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(raw, &o))
	return o.Metadata.Name, o.Metadata.ResourceVersion
}

func TestHealthVersionAndUnauthenticated(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, p := range []string{"/healthz", "/livez", "/readyz", "/version"} {
		resp, err := ts.anon.Get(ts.url + p)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, p)
	}
	resp, err := ts.anon.Get(ts.url + "/api/v1/namespaces")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	var st meta.Status
	require.NoError(t, json.Unmarshal(b, &st))
	assert.Equal(t, meta.StatusReasonUnauthorized, st.Reason)
	assert.Equal(t, "Status", st.Kind)

	ts.createConfigMap(t, "default", "m", nil)
	code, body := ts.do(t, "GET", "/metrics", "", nil)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(body), `apiserver_request_total{code="201",group="",resource="configmaps",subresource="",verb="create"} 1`)
	assert.Contains(t, string(body), `apiserver_request_duration_seconds_bucket{group="",resource="configmaps",subresource="",verb="create"`)
	assert.Contains(t, string(body), "go_memstats_heap_inuse_bytes ", "the process's own figures, as every Kubernetes component exports")
	assert.Contains(t, string(body), "process_resident_memory_bytes ")
}

func TestBadInput(t *testing.T) {
	ts := newTestServer(t, nil)
	tests := []struct {
		name, method, path, ctype string
		body                      []byte
		code                      int
		reason                    meta.StatusReason
	}{
		{"malformed JSON", "POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(`{"apiVersion":`), 400, meta.StatusReasonBadRequest},
		{"empty body", "POST", "/api/v1/namespaces/default/configmaps", "application/json", nil, 400, meta.StatusReasonBadRequest},
		{"oversized", "POST", "/api/v1/namespaces/default/configmaps", "application/json", bytes.Repeat([]byte("x"), MaxRequestBodyBytes+10), 413, meta.StatusReasonRequestEntityTooLarge},
		{"invalid name", "POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`), 422, meta.StatusReasonInvalid},
		{"wrong kind", "POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(`{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"a"}}`), 400, meta.StatusReasonBadRequest},
		{"namespace mismatch", "POST", "/api/v1/namespaces/default/configmaps", "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"other"}}`), 400, meta.StatusReasonBadRequest},
		{"unknown field strict", "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", "application/json", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"bogus":1}`), 400, meta.StatusReasonBadRequest},
		{"unsupported media type", "POST", "/api/v1/namespaces/default/configmaps", "text/plain", []byte(`x`), 415, meta.StatusReasonUnsupportedMediaType},
		{"not found", "GET", "/api/v1/namespaces/default/configmaps/nope", "", nil, 404, meta.StatusReasonNotFound},
		{"unknown resource", "GET", "/api/v1/namespaces/default/widgets", "", nil, 404, meta.StatusReasonNotFound},
		{"bad label selector", "GET", "/api/v1/namespaces/default/configmaps?labelSelector=a+in+(", "", nil, 400, meta.StatusReasonBadRequest},
		{"bad limit", "GET", "/api/v1/namespaces/default/configmaps?limit=x", "", nil, 400, meta.StatusReasonBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := ts.do(t, tt.method, tt.path, tt.ctype, tt.body)
			assert.Equal(t, tt.code, code, string(body))
			var st meta.Status
			require.NoError(t, json.Unmarshal(body, &st), string(body))
			assert.Equal(t, tt.reason, st.Reason, st.Message)
		})
	}
	// Nothing was written by the failures.
	code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps", "", nil)
	require.Equal(t, 200, code)
	assert.Contains(t, string(body), `"items":[]`)
}

func TestConflictOnStaleUpdate(t *testing.T) {
	ts := newTestServer(t, nil)
	obj := ts.createConfigMap(t, "default", "c", map[string]string{"a": "1"})
	upd := func(rv, val string) (int, []byte) {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "c", "resourceVersion": rv}, "data": map[string]string{"a": val}})
		return ts.do(t, "PUT", "/api/v1/namespaces/default/configmaps/c", "application/json", b)
	}
	code, body := upd(rvOf(obj), "2")
	require.Equal(t, 200, code, string(body))
	code, body = upd(rvOf(obj), "3")
	assert.Equal(t, 409, code)
	assert.Contains(t, string(body), `Operation cannot be fulfilled on configmaps \"c\": the object has been modified`)
	_, body = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps/c", "", nil)
	assert.Contains(t, string(body), `"a":"2"`, "the stale write changed nothing")
}

// clientAs returns an HTTP client with a client certificate for user in
// groups.
func (ts *testServer) clientAs(t testing.TB, user string, groups ...string) *http.Client {
	t.Helper()
	kp, err := ts.ca.IssueClient(user, groups...)
	require.NoError(t, err)
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ts.ca.Pool(), Certificates: []tls.Certificate{cert}}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestTooManyRequests: with one seat per priority level, a request of an
// ordinary user holding its level's seat makes the next one of that level
// wait in its queue and, as no seat comes free, 429 (Retry-After: 1), while system:masters (exempt) and a node (its own
// levels) are still served: a flood of low-priority requests cannot
// starve them.
func TestTooManyRequests(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.MaxInFlight = 1
		c.Authorizer = StaticAuthorizer(authz.AlwaysAllow())
	})
	alice := ts.clientAs(t, "alice")
	// Hold global-default's only seat with a request blocked on its body.
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", ts.url+"/api/v1/namespaces/default/configmaps", pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if resp, err := alice.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	defer func() { pw.Close(); wg.Wait() }()
	// Wait until the holder owns the seat before probing: a probe sent
	// earlier could itself hold the seat and get the holder refused.
	require.Equal(t, 1, ts.srv.flow.levels[PriorityLevelGlobalDefault].seats)
	deadline := time.Now().Add(10 * time.Second)
	for ts.srv.flow.busy(PriorityLevelGlobalDefault) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, 1, ts.srv.flow.busy(PriorityLevelGlobalDefault), "the blocked request never took the seat")
	ts.srv.flow.waitLimit = 10 * time.Millisecond // bob queues, then is refused

	get := func(c *http.Client, path string) *http.Response {
		resp, err := c.Get(ts.url + path)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	resp := get(ts.clientAs(t, "bob", "developers"), "/api/v1/namespaces")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, http.StatusOK, get(ts.http, "/api/v1/namespaces").StatusCode, "system:masters is exempt")
	node := ts.clientAs(t, "system:node:n1", "system:nodes")
	assert.Equal(t, http.StatusNotFound, get(node, "/api/v1/nodes/n1").StatusCode, "a node has seats of its own")
	assert.Equal(t, http.StatusOK, get(ts.anon, "/healthz").StatusCode, "health is never limited")
	// A failed authentication takes no seat (kube-apiserver limits after it).
	assert.Equal(t, http.StatusUnauthorized, get(ts.anon, "/api/v1/namespaces").StatusCode)
}

func TestWatchResumeGoneAndBookmarks(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.WatchHistory = 20; c.BookmarkInterval = 50 * time.Millisecond })
	first := ts.createConfigMap(t, "default", "w0", nil)
	next, code, closeFn := ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion="+rvOf(first))
	require.Equal(t, 200, code)
	var lastRV string
	for i := 1; i <= 5; i++ {
		ts.createConfigMap(t, "default", fmt.Sprintf("w%d", i), nil)
	}
	for seen := 0; seen < 5; {
		ev, err := next()
		require.NoError(t, err)
		if ev.Type == meta.Bookmark {
			continue
		}
		require.Equal(t, meta.Added, ev.Type)
		name, rv := objName(t, ev.Object)
		seen++
		assert.Equal(t, fmt.Sprintf("w%d", seen), name)
		lastRV = rv
	}
	// A bookmark arrives with a resourceVersion at least the last event's.
	for {
		ev, err := next()
		require.NoError(t, err)
		if ev.Type == meta.Bookmark {
			_, rv := objName(t, ev.Object)
			assert.GreaterOrEqual(t, parseRV(rv), parseRV(lastRV))
			break
		}
	}
	closeFn()

	// Resume from the last seen resourceVersion: only later events.
	ts.createConfigMap(t, "default", "w6", nil)
	next, code, closeFn = ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+lastRV)
	require.Equal(t, 200, code)
	ev, err := next()
	require.NoError(t, err)
	name, _ := objName(t, ev.Object)
	assert.Equal(t, "w6", name)
	closeFn()

	// Push the history past the first resourceVersion: 410 Gone.
	for i := 0; i < 30; i++ {
		ts.createConfigMap(t, "default", fmt.Sprintf("g%d", i), nil)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, code, closeFn = ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+rvOf(first))
		closeFn()
		if code == http.StatusGone || time.Now().After(deadline) {
			break
		}
	}
	assert.Equal(t, http.StatusGone, code)
}

func TestWatchFiltersAndInitialState(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.createConfigMap(t, "default", "a", nil)
	next, code, closeFn := ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Db")
	require.Equal(t, 200, code)
	defer closeFn()
	ts.createConfigMap(t, "default", "b", nil)
	ev, err := next()
	require.NoError(t, err)
	name, _ := objName(t, ev.Object)
	assert.Equal(t, "b", name, "the watcher only sees what its field selector selects")
	code, _ = ts.do(t, "DELETE", "/api/v1/namespaces/default/configmaps/b", "", nil)
	require.Equal(t, 200, code)
	ev, err = next()
	require.NoError(t, err)
	assert.Equal(t, meta.Deleted, ev.Type)

	// A watch without resourceVersion starts with the current objects.
	next2, _, close2 := ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1")
	defer close2()
	ev, err = next2()
	require.NoError(t, err)
	assert.Equal(t, meta.Added, ev.Type)
	name, _ = objName(t, ev.Object)
	assert.Equal(t, "a", name)
	assert.True(t, strings.HasPrefix(string(ev.Object), "{"))
}

// TestWatchFromStorageListRevision: a list read from storage returns the
// store's global revision, which writes to other resources moved on; a
// watch from it must start at once (the cache learns of the progress),
// not time out waiting for an event of its own resource.
func TestWatchFromStorageListRevision(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.createConfigMap(t, "default", "cm", nil)
	for i := 0; i < 3; i++ {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": fmt.Sprintf("s%d", i)}})
		code, out := ts.do(t, "POST", "/api/v1/namespaces/default/secrets", "application/json", b)
		require.Equal(t, http.StatusCreated, code, string(out))
	}
	code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps", "", nil)
	require.Equal(t, http.StatusOK, code)
	var list meta.List[json.RawMessage]
	require.NoError(t, json.Unmarshal(body, &list))
	next, code, closeFn := ts.watchStream(t, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+list.ResourceVersion)
	require.Equal(t, http.StatusOK, code, "watch from the list's resourceVersion (a 504 means the cache never learnt of the progress)")
	defer closeFn()
	ts.createConfigMap(t, "default", "later", nil)
	ev, err := next()
	require.NoError(t, err)
	name, _ := objName(t, ev.Object)
	assert.Equal(t, "later", name)
}

// TestBootstrapReconcilesRoles: a bootstrap ClusterRole whose rules are out
// of date is updated at start, unless its autoupdate annotation is false.
func TestBootstrapReconcilesRoles(t *testing.T) {
	ts := newTestServer(t, nil)
	path := "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler"
	code, body := ts.do(t, "PATCH", path, "application/merge-patch+json", []byte(`{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`))
	require.Equal(t, http.StatusOK, code, string(body))
	require.NoError(t, ts.srv.Bootstrap(context.Background()))
	_, body = ts.do(t, "GET", path, "", nil)
	assert.Contains(t, string(body), "bindings", "rules restored")

	code, body = ts.do(t, "PATCH", path, "application/merge-patch+json",
		[]byte(`{"metadata":{"annotations":{"rbac.authorization.kubernetes.io/autoupdate":"false"}},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`))
	require.Equal(t, http.StatusOK, code, string(body))
	require.NoError(t, ts.srv.Bootstrap(context.Background()))
	_, body = ts.do(t, "GET", path, "", nil)
	assert.NotContains(t, string(body), "bindings", "an operator's role is left alone")

	// An aggregated role (view) keeps the rules its aggregation added and
	// gets back a bootstrap rule that went missing.
	view := "/apis/rbac.authorization.k8s.io/v1/clusterroles/view"
	code, body = ts.do(t, "PATCH", view, "application/merge-patch+json",
		[]byte(`{"rules":[{"apiGroups":["example.com"],"resources":["widgets"],"verbs":["get"]}]}`))
	require.Equal(t, http.StatusOK, code, string(body))
	require.NoError(t, ts.srv.Bootstrap(context.Background()))
	_, body = ts.do(t, "GET", view, "", nil)
	assert.Contains(t, string(body), "widgets", "the aggregated rule is kept")
	assert.Contains(t, string(body), "deployments", "the bootstrap rules are back")
}

// TestDeleteCollection deletes the objects a label selector picks and
// leaves the others.
func TestDeleteCollection(t *testing.T) {
	ts := newTestServer(t, nil)
	for i, tier := range []string{"web", "web", "db"} {
		b, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("c%d", i), "labels": map[string]string{"tier": tier}}})
		code, out := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json", b)
		require.Equal(t, http.StatusCreated, code, string(out))
	}
	code, body := ts.do(t, "DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dweb", "", nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var deleted meta.List[json.RawMessage]
	require.NoError(t, json.Unmarshal(body, &deleted))
	assert.Len(t, deleted.Items, 2)
	_, body = ts.do(t, "GET", "/api/v1/namespaces/default/configmaps", "", nil)
	var left meta.List[json.RawMessage]
	require.NoError(t, json.Unmarshal(body, &left))
	require.Len(t, left.Items, 1)
	assert.Contains(t, string(left.Items[0]), `"name":"c2"`)
}

// TestRegisterAfterStart: a kind registered while the server runs is
// served at once, watches included.
func TestRegisterAfterStart(t *testing.T) {
	ts := newTestServer(t, nil)
	thing := &scheme.Type{Kind: meta.GroupVersionKind{Group: "example.orkit.io", Version: "v1", Kind: "Thing"},
		Resource: "things", Namespaced: true,
		New:     func() meta.Object { return &core.ConfigMap{} },
		NewList: func() meta.ListObject { return &core.ConfigMapList{} }}
	require.NoError(t, ts.srv.Register(Resource{Type: thing}))
	next, code, closeFn := ts.watchStream(t, "/apis/example.orkit.io/v1/namespaces/default/things?watch=1")
	require.Equal(t, http.StatusOK, code)
	defer closeFn()
	code, body := ts.do(t, "POST", "/apis/example.orkit.io/v1/namespaces/default/things", "application/json",
		[]byte(`{"apiVersion":"example.orkit.io/v1","kind":"Thing","metadata":{"name":"t1"}}`))
	require.Equal(t, http.StatusCreated, code, string(body))
	ev, err := next()
	require.NoError(t, err)
	name, _ := objName(t, ev.Object)
	assert.Equal(t, "t1", name)
}

// TestDeleteTerminatedPodWithPendingGrace: a pod that terminated while a
// graceful deletion was pending goes with the next delete.
func TestDeleteTerminatedPodWithPendingGrace(t *testing.T) {
	ts := newTestServer(t, nil)
	code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json",
		[]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]}}`))
	require.Equal(t, http.StatusCreated, code, string(body))
	code, body = ts.do(t, "DELETE", "/api/v1/namespaces/default/pods/p", "", nil)
	require.Equal(t, http.StatusOK, code, string(body)) // graceful: kept, still 200 as kube-apiserver answers
	code, body = ts.do(t, "PATCH", "/api/v1/namespaces/default/pods/p/status", "application/merge-patch+json", []byte(`{"status":{"phase":"Succeeded"}}`))
	require.Equal(t, http.StatusOK, code, string(body))
	code, body = ts.do(t, "DELETE", "/api/v1/namespaces/default/pods/p", "application/json", []byte(`{"gracePeriodSeconds":0}`))
	require.Equal(t, http.StatusOK, code, string(body))
	code, _ = ts.do(t, "GET", "/api/v1/namespaces/default/pods/p", "", nil)
	assert.Equal(t, http.StatusNotFound, code)
}
