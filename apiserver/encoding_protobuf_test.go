package apiserver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/apiserver/protobuf"
)

func TestPrefersProtobuf(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                                    false,
		"application/json":                    false,
		"application/vnd.kubernetes.protobuf": true,
		"application/vnd.kubernetes.protobuf, */*":                        true,
		"application/vnd.kubernetes.protobuf,application/json":            true,
		"application/json, application/vnd.kubernetes.protobuf":           false,
		"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io": false,
		"application/json;as=Table;v=v1;g=meta.k8s.io,application/json":   false,
		"bad;;;, application/vnd.kubernetes.protobuf":                     true,
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Accept", accept)
		assert.Equal(t, want, prefersProtobuf(r), "Accept: %q", accept)
	}
}

// doAcceptResp sends a request with Accept set and returns the response.
func (ts *testServer) doAcceptResp(t *testing.T, method, path, accept string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := ts.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestProtobufResponses: a protobuf client gets the same objects, lists
// and errors as a JSON client, in protobuf; kinds without a schema and
// Tables stay JSON.
func TestProtobufResponses(t *testing.T) {
	ts := newTestServer(t, nil)
	const pb = "application/vnd.kubernetes.protobuf, */*"
	resp, _ := ts.doAcceptResp(t, http.MethodPost, "/api/v1/namespaces/default/configmaps", pb,
		[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}}`))
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, protobufType, resp.Header.Get("Content-Type"))

	t.Run("get", func(t *testing.T) {
		_, js := ts.doAcceptResp(t, http.MethodGet, "/api/v1/namespaces/default/configmaps/c", "application/json", nil)
		resp, body := ts.doAcceptResp(t, http.MethodGet, "/api/v1/namespaces/default/configmaps/c", pb, nil)
		require.Equal(t, protobufType, resp.Header.Get("Content-Type"))
		back, gvk, err := protobuf.ToJSON(body)
		require.NoError(t, err)
		assert.Equal(t, "ConfigMap", gvk.Kind)
		assertSameJSONValue(t, js, back)
	})
	t.Run("list", func(t *testing.T) {
		resp, body := ts.doAcceptResp(t, http.MethodGet, "/api/v1/namespaces/default/configmaps", pb, nil)
		require.Equal(t, protobufType, resp.Header.Get("Content-Type"))
		assert.True(t, bytes.HasPrefix(body, []byte("k8s\x00")))
		assert.Contains(t, string(body), "ConfigMapList")
	})
	t.Run("error is a protobuf Status", func(t *testing.T) {
		resp, body := ts.doAcceptResp(t, http.MethodGet, "/api/v1/namespaces/default/configmaps/missing", pb, nil)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.Equal(t, protobufType, resp.Header.Get("Content-Type"))
		assert.Contains(t, string(body), "NotFound")
	})
	t.Run("table stays JSON", func(t *testing.T) {
		resp, _ := ts.doAcceptResp(t, http.MethodGet, "/api/v1/namespaces/default/configmaps", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json", nil)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	})
	t.Run("watch stream", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, ts.url+"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0", nil)
		require.NoError(t, err)
		req.Header.Set("Accept", pb)
		resp, err := ts.http.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		assert.Equal(t, protobufType+";stream=watch", resp.Header.Get("Content-Type"))
		var n [4]byte
		_, err = io.ReadFull(resp.Body, n[:])
		require.NoError(t, err)
		frame := make([]byte, binary.BigEndian.Uint32(n[:]))
		_, err = io.ReadFull(resp.Body, frame)
		require.NoError(t, err)
		assert.Contains(t, string(frame), "ADDED")
		assert.Contains(t, string(frame), "k8s\x00")
	})
}

func assertSameJSONValue(t *testing.T, want, got []byte) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	assert.Equal(t, w, g)
}
