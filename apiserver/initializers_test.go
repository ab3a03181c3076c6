package apiserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

const initConfig = `{"apiVersion":"admissionregistration.k8s.io/v1alpha1","kind":"InitializerConfiguration",
 "metadata":{"name":"cm-init"},
 "initializers":[
  {"name":"first.init.orkit.io","rules":[{"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]},
  {"name":"second.init.orkit.io","rules":[{"apiGroups":["*"],"apiVersions":["*"],"resources":["configmaps"]}]}]}`

// pendingOf reads an object's pending initializer names.
func pendingOf(t *testing.T, body []byte) []string {
	var o struct {
		Metadata meta.ObjectMeta `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(body, &o))
	var out []string
	if o.Metadata.Initializers != nil {
		for _, p := range o.Metadata.Initializers.Pending {
			out = append(out, p.Name)
		}
	}
	return out
}

// TestInitializers: a create waits while initializers are pending, the
// object is hidden from ordinary reads, each initializer acts in order
// and removes itself, and the create returns the initialized object.
func TestInitializers(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Initializers = true })
	code, body := ts.do(t, "POST", "/apis/admissionregistration.k8s.io/v1alpha1/initializerconfigurations", "application/json", []byte(initConfig))
	require.Equal(t, http.StatusCreated, code, string(body))
	// The configuration reaches the cache asynchronously.
	require.Eventually(t, func() bool {
		objs, _ := ts.srv.initializers.configs.List("", Filter{})
		return len(objs) == 1
	}, 5*time.Second, 10*time.Millisecond)

	type result struct {
		code int
		body []byte
	}
	done := make(chan result, 1)
	go func() {
		c, b := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json",
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`))
		done <- result{c, b}
	}()
	path := "/api/v1/namespaces/default/configmaps/x"
	var cur []byte
	require.Eventually(t, func() bool {
		c, b := ts.do(t, "GET", path+"?includeUninitialized=true", "", nil)
		cur = b
		return c == http.StatusOK
	}, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"first.init.orkit.io", "second.init.orkit.io"}, pendingOf(t, cur))
	c, _ := ts.do(t, "GET", path, "", nil)
	assert.Equal(t, http.StatusNotFound, c, "uninitialized objects are hidden")
	_, list := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps", "", nil)
	assert.NotContains(t, string(list), `"name":"x"`)

	// The first initializer acts and removes itself.
	c, b := ts.do(t, "PATCH", path+"?includeUninitialized=true", "application/merge-patch+json",
		[]byte(`{"metadata":{"labels":{"first":"done"},"initializers":{"pending":[{"name":"second.init.orkit.io"}]}}}`))
	require.Equal(t, http.StatusOK, c, string(b))
	select {
	case r := <-done:
		t.Fatalf("create returned before initialization finished: %d %s", r.code, r.body)
	default:
	}
	// The second one too: the object is initialized and the create returns it.
	c, b = ts.do(t, "PATCH", path+"?includeUninitialized=true", "application/merge-patch+json",
		[]byte(`{"metadata":{"labels":{"second":"done"},"initializers":{"pending":[]}}}`))
	require.Equal(t, http.StatusOK, c, string(b))
	r := <-done
	require.Equal(t, http.StatusCreated, r.code, string(r.body))
	assert.Contains(t, string(r.body), `"first":"done"`)
	assert.Contains(t, string(r.body), `"second":"done"`)
	assert.Empty(t, pendingOf(t, r.body))
	c, _ = ts.do(t, "GET", path, "", nil)
	assert.Equal(t, http.StatusOK, c)
}

// TestInitializerFailure: an initializer that records a failure result
// fails the create with its message and the object is deleted.
func TestInitializerFailure(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Initializers = true })
	code, body := ts.do(t, "POST", "/apis/admissionregistration.k8s.io/v1alpha1/initializerconfigurations", "application/json", []byte(initConfig))
	require.Equal(t, http.StatusCreated, code, string(body))
	require.Eventually(t, func() bool {
		objs, _ := ts.srv.initializers.configs.List("", Filter{})
		return len(objs) == 1
	}, 5*time.Second, 10*time.Millisecond)
	done := make(chan []byte, 1)
	go func() {
		_, b := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", "application/json",
			[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"}}`))
		done <- b
	}()
	path := "/api/v1/namespaces/default/configmaps/bad"
	require.Eventually(t, func() bool {
		c, _ := ts.do(t, "GET", path+"?includeUninitialized=true", "", nil)
		return c == http.StatusOK
	}, 5*time.Second, 10*time.Millisecond)
	c, b := ts.do(t, "PATCH", path+"?includeUninitialized=true", "application/merge-patch+json",
		[]byte(`{"metadata":{"initializers":{"result":{"status":"Failure","code":403,"reason":"Forbidden","message":"first.init.orkit.io refused: no team label"}}}}`))
	require.Equal(t, http.StatusOK, c, string(b))
	out := <-done
	assert.Contains(t, string(out), "no team label")
	require.Eventually(t, func() bool {
		c, _ := ts.do(t, "GET", path+"?includeUninitialized=true", "", nil)
		return c == http.StatusNotFound
	}, 5*time.Second, 10*time.Millisecond, "the failed object is deleted")
}
