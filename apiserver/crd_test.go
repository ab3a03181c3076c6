package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/orkit/orkit/api/meta"
)

func TestCustomObjectRoundTrip(t *testing.T) {
	in := `{"kind":"CronTab","metadata":{"name":"a","labels":{"x":"y"}},"apiVersion":"stable.example.com/v1",` +
		`"spec":{"big":9007199254740993,"f":1.5,"list":[1,"two",null,true]},"Zeta":{},"data":null}`
	o := &CustomObject{}
	require.NoError(t, json.Unmarshal([]byte(in), o))
	assert.Equal(t, "a", o.Name)
	assert.Equal(t, map[string]string{"x": "y"}, o.Labels)
	assert.Equal(t, int64(9007199254740993), o.Content["spec"].(map[string]any)["big"], "integers stay exact int64")
	out, err := json.Marshal(o)
	require.NoError(t, err)
	assert.Equal(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","labels":{"x":"y"}},`+
		`"Zeta":{},"data":null,"spec":{"big":9007199254740993,"f":1.5,"list":[1,"two",null,true]}}`, string(out),
		"apiVersion, kind and metadata first, then the fields in key order")
	cp := meta.DeepCopy(o)
	assert.Equal(t, o.Content, cp.Content)

	for _, bad := range []string{`null`, `[]`, `{"apiVersion":1}`, `{"metadata":"x"}`, `{"spec":NaN}`, `{`} {
		assert.Error(t, json.Unmarshal([]byte(bad), &CustomObject{}), bad)
	}
}

func TestRewriteAPIVersion(t *testing.T) {
	tests := []struct{ name, in, to, want string }{
		{"rewritten", `{"apiVersion":"g/v1","kind":"K"}`, "g/v1beta1", `{"apiVersion":"g/v1beta1","kind":"K"}`},
		{"same", `{"apiVersion":"g/v1","kind":"K"}`, "g/v1", `{"apiVersion":"g/v1","kind":"K"}`},
		{"not ours", `{"kind":"K","apiVersion":"g/v1"}`, "g/v2", `{"kind":"K","apiVersion":"g/v1"}`},
		{"truncated", `{"apiVersion":"g/v1`, "g/v2", `{"apiVersion":"g/v1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(rewriteAPIVersion([]byte(tt.in), tt.to)))
		})
	}
}

// FuzzCustomObject: whatever decodes encodes, and decodes again to the
// same object; rewriting the apiVersion of the encoding keeps it valid.
func FuzzCustomObject(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"a/v1","kind":"K","metadata":{"name":"x"},"spec":{"n":1,"s":"t"}}`))
	f.Add([]byte(`{"status":[1,2.5,{"a":null}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		o := &CustomObject{}
		if json.Unmarshal(b, o) != nil {
			return
		}
		out, err := json.Marshal(o)
		require.NoError(t, err)
		again := &CustomObject{}
		require.NoError(t, json.Unmarshal(out, again), string(out))
		out2, err := json.Marshal(again)
		require.NoError(t, err)
		require.Equal(t, string(out), string(out2))
		require.True(t, json.Valid(rewriteAPIVersion(out, "x.example.com/v9")))
	})
}

// postCRD creates the CRD of testdata/crd/<file> and waits until it is
// Established.
func (ts *testServer) postCRD(t *testing.T, file string) {
	t.Helper()
	y, err := os.ReadFile(filepath.Join("testdata", "crd", file))
	require.NoError(t, err)
	b, err := yaml.YAMLToJSON(y)
	require.NoError(t, err)
	code, out := ts.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", b)
	require.Equal(t, http.StatusCreated, code, string(out))
	var crd struct {
		Metadata meta.ObjectMeta `json:"metadata"`
		Status   struct {
			Conditions []struct{ Type, Status string } `json:"conditions"`
		} `json:"status"`
	}
	require.NoError(t, json.Unmarshal(out, &crd))
	waitFor(t, "the CRD to be established", func() bool {
		_, out := ts.do(t, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crd.Metadata.Name, "", nil)
		require.NoError(t, json.Unmarshal(out, &crd))
		for _, c := range crd.Status.Conditions {
			if c.Type == "Established" && c.Status == "True" {
				return true
			}
		}
		return false
	})
}

// waitFor polls f until it holds or 10 s pass.
func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func apiVersionOf(t *testing.T, b []byte) string {
	t.Helper()
	var tm meta.TypeMeta
	require.NoError(t, json.Unmarshal(b, &tm), string(b))
	return tm.APIVersion
}

// TestCRDVersions: a custom resource written in one version is read,
// listed and watched in every served version with that version's
// apiVersion (conversion None), and stored as the storage version.
func TestCRDVersions(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.postCRD(t, "crontab-crd.yaml")
	const v1, beta = "/apis/stable.example.com/v1/namespaces/default/crontabs", "/apis/stable.example.com/v1beta1/namespaces/default/crontabs"
	next, code, stop := ts.watchStream(t, beta+"?watch=true")
	require.Equal(t, http.StatusOK, code)
	defer stop()

	code, out := ts.do(t, "POST", beta, "application/json",
		[]byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *"}}`))
	require.Equal(t, http.StatusCreated, code, string(out))
	assert.Equal(t, "stable.example.com/v1beta1", apiVersionOf(t, out))

	st, ok := ts.srv.Storage(meta.GroupVersionResource{Group: "stable.example.com", Version: "v1beta1", Resource: "crontabs"})
	require.True(t, ok)
	kv, err := st.store.Get(context.Background(), st.Key("default", "a"))
	require.NoError(t, err)
	assert.Equal(t, "stable.example.com/v1", apiVersionOf(t, kv.Value), "stored as the storage version")

	code, out = ts.do(t, "GET", v1+"/a", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	assert.Equal(t, "stable.example.com/v1", apiVersionOf(t, out))
	resp, err := ts.http.Get(ts.url + beta + "/a")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, `299 - "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab"`, resp.Header.Get("Warning"))
	code, out = ts.do(t, "PUT", v1+"/a", "application/json", out)
	require.Equal(t, http.StatusOK, code, string(out))

	ev, err := next()
	require.NoError(t, err)
	assert.Equal(t, meta.Added, ev.Type)
	assert.Equal(t, "stable.example.com/v1beta1", apiVersionOf(t, ev.Object), "the v1beta1 watch sends v1beta1")

	code, out = ts.do(t, "GET", beta+"?resourceVersion=0", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	var list struct {
		APIVersion string            `json:"apiVersion"`
		Items      []json.RawMessage `json:"items"`
	}
	require.NoError(t, json.Unmarshal(out, &list))
	require.Len(t, list.Items, 1)
	assert.Equal(t, "stable.example.com/v1beta1", list.APIVersion)
	assert.Equal(t, "stable.example.com/v1beta1", apiVersionOf(t, list.Items[0]), "cached items carry the version listed")
}

// TestCRDDeletionWaitsForFinalizers: deleting a CRD marks it Terminating
// and deletes its custom resources; one held by a finalizer keeps the CRD
// until the finalizer is removed, then both go and the resource is no
// longer served.
func TestCRDDeletionWaitsForFinalizers(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.postCRD(t, "crontab-crd.yaml")
	const crs, crd = "/apis/stable.example.com/v1/namespaces/default/crontabs", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com"
	for _, body := range []string{
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"held","finalizers":["example.com/hold"]}}`,
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"free"}}`,
	} {
		code, out := ts.do(t, "POST", crs, "application/json", []byte(body))
		require.Equal(t, http.StatusCreated, code, string(out))
	}
	code, out := ts.do(t, "DELETE", crd, "", nil)
	require.Contains(t, []int{http.StatusOK, http.StatusAccepted}, code, string(out))
	assert.Contains(t, string(out), `"finalizers":["customresourcecleanup.apiextensions.k8s.io"]`)
	assert.Contains(t, string(out), `"deletionTimestamp"`)

	waitFor(t, "the free object to go", func() bool {
		code, _ := ts.do(t, "GET", crs+"/free", "", nil)
		return code == http.StatusNotFound
	})
	waitFor(t, "Terminating InstanceDeletionInProgress", func() bool {
		_, out := ts.do(t, "GET", crd, "", nil)
		return json.Valid(out) && contains(out, `"reason":"InstanceDeletionInProgress"`)
	})
	waitFor(t, "the held object to be marked for deletion", func() bool {
		code, out := ts.do(t, "GET", crs+"/held", "", nil)
		require.Equal(t, http.StatusOK, code, string(out))
		return contains(out, `"deletionTimestamp"`)
	})
	code, out = ts.do(t, "GET", crd, "", nil)
	require.Equal(t, http.StatusOK, code, "the finalizer of the held object keeps the CRD")
	assert.Contains(t, string(out), `"reason":"InstanceDeletionInProgress"`)

	code, out = ts.do(t, "POST", crs, "application/json", []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"late"}}`))
	assert.Equal(t, http.StatusMethodNotAllowed, code)
	assert.Contains(t, string(out), "create not allowed while custom resource definition is terminating")

	code, out = ts.do(t, "PATCH", crs+"/held", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
	require.Equal(t, http.StatusOK, code, string(out))
	waitFor(t, "the CRD to go", func() bool {
		code, _ := ts.do(t, "GET", crd, "", nil)
		return code == http.StatusNotFound
	})
	code, _ = ts.do(t, "GET", crs, "", nil)
	assert.Equal(t, http.StatusNotFound, code, "no longer served")
	code, _ = ts.do(t, "GET", "/apis/stable.example.com/v1", "", nil)
	assert.Equal(t, http.StatusNotFound, code, "gone from discovery")
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// TestCRDDefaultsOnRead: an object stored without a field its schema
// defaults (stored before the default was added) is served with the
// default by get, list and watch, as kube-apiserver defaults what it reads
// from etcd; the stored value is left as it is until the next write.
func TestCRDDefaultsOnRead(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.postCRD(t, "crontab-crd.yaml")
	const crs = "/apis/stable.example.com/v1/namespaces/default/crontabs"
	st, ok := ts.srv.Storage(meta.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"})
	require.True(t, ok)
	old := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"old","namespace":"default","uid":"u-1",` +
		`"creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"cronSpec":"* * * * *","replicas":3}}`
	_, err := st.store.Create(context.Background(), st.Key("default", "old"), []byte(old))
	require.NoError(t, err)

	defaulted := func(b []byte) bool {
		return contains(b, `"spec":{"cronSpec":"* * * * *","maxReplicas":10,"replicas":3}`)
	}
	waitFor(t, "the object in the watch cache", func() bool {
		code, _ := ts.do(t, "GET", crs+"/old?resourceVersion=0", "", nil)
		return code == http.StatusOK
	})
	for _, path := range []string{crs + "/old", crs + "/old?resourceVersion=0", crs, crs + "?resourceVersion=0"} {
		code, out := ts.do(t, "GET", path, "", nil)
		require.Equal(t, http.StatusOK, code, string(out))
		assert.True(t, defaulted(out), "%s: maxReplicas defaulted on read: %s", path, out)
	}
	next, code, stop := ts.watchStream(t, crs+"?watch=true&resourceVersion=0")
	require.Equal(t, http.StatusOK, code)
	defer stop()
	ev, err := next()
	require.NoError(t, err)
	assert.True(t, defaulted(ev.Object), "watch: %s", ev.Object)

	kv, err := st.store.Get(context.Background(), st.Key("default", "old"))
	require.NoError(t, err)
	assert.JSONEq(t, old, string(kv.Value), "a read does not write")

	// An update reads the defaulted object, so the write stores the default.
	code, out := ts.do(t, "PATCH", crs+"/old", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	require.Equal(t, http.StatusOK, code, string(out))
	kv, err = st.store.Get(context.Background(), st.Key("default", "old"))
	require.NoError(t, err)
	assert.True(t, defaulted(kv.Value), "stored after a write: %s", kv.Value)
}
