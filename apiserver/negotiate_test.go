package apiserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// doAccept sends a request with an Accept header and returns the status
// code and body.
func (ts *testServer) doAccept(t *testing.T, method, path, accept string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, bytes.NewReader(body))
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// TestResponseNegotiation: the Accept header picks the response's form as
// in kube-apiserver. A Table of a kind without one (the conformance spec
// "should return a 406 for a backend which does not implement metadata"
// posts a SelfSubjectAccessReview) is 406 unless the header offers
// another form, as kubectl's does; PartialObjectMetadata(List) is served
// for objects (lists); a transformation or media type the server does not
// serve is skipped for the next clause, and 406 when none is left.
func TestResponseNegotiation(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.createConfigMap(t, "default", "cm", map[string]string{"k": "v"})
	const (
		table        = "application/json;as=Table;v=v1;g=meta.k8s.io"
		tableBeta    = "application/json;as=Table;v=v1beta1;g=meta.k8s.io"
		partial      = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
		partialList  = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
		kubectlTable = table + "," + tableBeta + ",application/json"
		ssarPath     = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
		cmPath       = "/api/v1/namespaces/default/configmaps"
	)
	ssar := []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`)
	newCM := func(name string) []byte {
		return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`)
	}
	cases := []struct {
		name, method, path, accept string
		body                       []byte
		code                       int
		kind, apiVersion           string // of the response
	}{
		{"review as Table is 406", "POST", ssarPath, table, ssar, http.StatusNotAcceptable, "Status", "v1"},
		{"review as Table v1beta1 is 406", "POST", ssarPath, tableBeta, ssar, http.StatusNotAcceptable, "Status", "v1"},
		{"review with kubectl's JSON fallback", "POST", ssarPath, kubectlTable, ssar, http.StatusCreated, "SelfSubjectAccessReview", "authorization.k8s.io/v1"},
		{"review as PartialObjectMetadata", "POST", ssarPath, partial, ssar, http.StatusCreated, "PartialObjectMetadata", "meta.k8s.io/v1"},
		{"review as JSON", "POST", ssarPath, "application/json", ssar, http.StatusCreated, "SelfSubjectAccessReview", "authorization.k8s.io/v1"},
		{"get as Table", "GET", cmPath + "/cm", table, nil, http.StatusOK, "Table", "meta.k8s.io/v1"},
		{"get as Table v1beta1", "GET", cmPath + "/cm", tableBeta, nil, http.StatusOK, "Table", "meta.k8s.io/v1beta1"},
		{"get with kubectl's header", "GET", cmPath + "/cm", kubectlTable, nil, http.StatusOK, "Table", "meta.k8s.io/v1"},
		{"list as Table", "GET", cmPath, table, nil, http.StatusOK, "Table", "meta.k8s.io/v1"},
		{"get as PartialObjectMetadata", "GET", cmPath + "/cm", partial, nil, http.StatusOK, "PartialObjectMetadata", "meta.k8s.io/v1"},
		{"list as PartialObjectMetadataList", "GET", cmPath, partialList, nil, http.StatusOK, "PartialObjectMetadataList", "meta.k8s.io/v1"},
		{"list as PartialObjectMetadata is 406", "GET", cmPath, partial, nil, http.StatusNotAcceptable, "Status", "v1"},
		{"get as PartialObjectMetadataList is 406", "GET", cmPath + "/cm", partialList, nil, http.StatusNotAcceptable, "Status", "v1"},
		{"create as PartialObjectMetadataList is 406", "POST", cmPath, partialList, newCM("refused"), http.StatusNotAcceptable, "Status", "v1"},
		{"create as Table", "POST", cmPath, table, newCM("tabled"), http.StatusCreated, "Table", "meta.k8s.io/v1"},
		{"Table as protobuf is 406", "GET", cmPath + "/cm", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", nil, http.StatusNotAcceptable, "Status", "v1"},
		{"Table of another group is 406", "GET", cmPath + "/cm", "application/json;as=Table;v=v1;g=example.com", nil, http.StatusNotAcceptable, "Status", "v1"},
		{"unknown transformation falls back", "GET", cmPath + "/cm", "application/json;as=Other;v=v1;g=meta.k8s.io, application/json", nil, http.StatusOK, "ConfigMap", "v1"},
		{"q=0 is never chosen", "GET", cmPath + "/cm", table + ";q=0, application/json", nil, http.StatusOK, "ConfigMap", "v1"},
		{"higher q wins", "GET", cmPath + "/cm", "application/json;q=0.5, " + table, nil, http.StatusOK, "Table", "meta.k8s.io/v1"},
		{"unserved media type is 406", "GET", cmPath + "/cm", "text/html", nil, http.StatusNotAcceptable, "Status", "v1"},
		{"wildcard", "GET", cmPath + "/cm", "text/html, */*;q=0.8", nil, http.StatusOK, "ConfigMap", "v1"},
		{"JSON preferred to protobuf", "GET", cmPath + "/cm", "application/vnd.kubernetes.protobuf;q=0.5, application/json", nil, http.StatusOK, "ConfigMap", "v1"},
		{"no header", "GET", cmPath + "/cm", "", nil, http.StatusOK, "ConfigMap", "v1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := ts.doAccept(t, tc.method, tc.path, tc.accept, tc.body)
			require.Equal(t, tc.code, code, string(body))
			var got struct {
				meta.TypeMeta
				Reason meta.StatusReason `json:"reason"`
			}
			require.NoError(t, json.Unmarshal(body, &got), string(body))
			assert.Equal(t, tc.kind, got.Kind, string(body))
			assert.Equal(t, tc.apiVersion, got.APIVersion, string(body))
			if code == http.StatusNotAcceptable {
				assert.Equal(t, meta.StatusReasonNotAcceptable, got.Reason)
			}
		})
	}
	code, _ := ts.doAccept(t, "GET", cmPath+"/refused", "application/json", nil)
	assert.Equal(t, http.StatusNotFound, code, "a create refused as not acceptable stores nothing")
}

// TestPartialObjectMetadataWatch: a watch asked as PartialObjectMetadata
// (client-go's metadata informers) gets its events' objects as that.
func TestPartialObjectMetadataWatch(t *testing.T) {
	ts := newTestServer(t, nil)
	cm := ts.createConfigMap(t, "default", "cm", map[string]string{"k": "v"})
	req, err := http.NewRequest("GET", ts.url+"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+rvOf(cm)+"&allowWatchBookmarks=false", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ts.createConfigMap(t, "default", "second", map[string]string{"k": "v"})
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ev))
	var obj map[string]any
	require.NoError(t, json.Unmarshal(ev.Object, &obj))
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, "PartialObjectMetadata", obj["kind"])
	assert.Equal(t, "meta.k8s.io/v1", obj["apiVersion"])
	assert.NotContains(t, obj, "data")
	assert.Equal(t, "second", obj["metadata"].(map[string]any)["name"])
}

// FuzzParseAccept: any Accept header parses without panicking into
// clauses ordered by preference, none of them with q <= 0.
func FuzzParseAccept(f *testing.F) {
	for _, s := range []string{"", "application/json", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
		"text/html, */*;q=0.8", "a/b;q=x", ";;,,", "a/b;q=NaN", "*/*;q=;as", "Application/JSON;as=Table;;v=v1;g=meta.k8s.io", "application/*;q=0.5;as=PartialObjectMetadata"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		cs := parseAccept(header)
		for i, c := range cs {
			require.Greater(t, c.q, 0.0)
			if i > 0 {
				require.LessOrEqual(t, c.q, cs[i-1].q)
			}
		}
	})
}
