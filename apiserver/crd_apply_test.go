package apiserver

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCRDApplyObjectFields: server-side apply types a custom resource by
// its schema extended as kube-apiserver extends it — apiVersion, kind and
// metadata (ObjectMeta) at the root and in embedded resources — so a
// valid configuration with embedded apiVersion, kind and labels applies,
// and under fieldValidation=Strict fields that ObjectMeta or the schema
// do not declare are named (structured-merge-diff, as kube-apiserver
// uses it, reports the first problem of each object).
func TestCRDApplyObjectFields(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.postCRD(t, "embedded-crd.yaml")
	const path = "/apis/embed.example.com/v1/gadgets/g1?fieldManager=m&fieldValidation=Strict"
	apply := func(body string) (int, []byte) {
		return ts.do(t, "PATCH", path, "application/apply-patch+yaml", []byte(body))
	}

	code, out := apply(`
apiVersion: embed.example.com/v1
kind: Gadget
metadata:
  name: g1
  unknownMeta: x
spec:
  template:
    apiversion: foo/v1
    kind: Sub
    metadata:
      name: sub
      unknownSubMeta: x
  foo: a`)
	require.Equal(t, http.StatusBadRequest, code, string(out))
	assert.Contains(t, string(out), "failed to create typed patch object (g1; embed.example.com/v1, Kind=Gadget)")
	assert.Contains(t, string(out), ".metadata.unknownMeta: field not declared in schema")
	assert.Contains(t, string(out), ".spec.template.apiversion: field not declared in schema")

	code, out = apply(`
apiVersion: embed.example.com/v1
kind: Gadget
metadata:
  name: g1
spec:
  template:
    apiVersion: foo/v1
    kind: Sub
    metadata:
      name: sub
      unknownSubMeta: x`)
	require.Equal(t, http.StatusBadRequest, code, string(out))
	assert.Contains(t, string(out), ".spec.template.metadata.unknownSubMeta: field not declared in schema")

	code, out = apply(`
apiVersion: embed.example.com/v1
kind: Gadget
metadata:
  name: g1
  labels: {app: g}
spec:
  template:
    apiVersion: foo/v1
    kind: Sub
    metadata:
      name: sub
      labels: {tier: x}
    spec: {}
  foo: a
  unknown: kept
  ports:
  - port: 80
    name: http`)
	require.Equal(t, http.StatusCreated, code, string(out))
	assert.Contains(t, string(out), `"labels":{"tier":"x"}`)
	assert.Contains(t, string(out), `"unknown":"kept"`)
}

// TestCRDApplyDuplicateKeys: a configuration with a duplicate key is a
// 400 naming the line under fieldValidation=Strict and a warning under
// Warn (the default), as in kube-apiserver; Ignore says nothing.
func TestCRDApplyDuplicateKeys(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.postCRD(t, "embedded-crd.yaml")
	body := []byte(`
apiVersion: embed.example.com/v1
kind: Gadget
metadata:
  name: g2
spec:
  foo: foo1
  foo: foo2`)
	apply := func(validation string) *http.Response {
		req, err := http.NewRequest("PATCH", ts.url+"/apis/embed.example.com/v1/gadgets/g2?fieldManager=m"+validation, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/apply-patch+yaml")
		resp, err := ts.http.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := apply("&fieldValidation=Strict")
	out := readAllString(t, resp)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, out)
	assert.Contains(t, out, `error strict decoding patch`)
	assert.Contains(t, out, `line 8: key \"foo\" already set in map`)

	resp = apply("&fieldValidation=Ignore")
	require.Equal(t, http.StatusCreated, resp.StatusCode, readAllString(t, resp))
	assert.Empty(t, resp.Header.Values("Warning"))

	resp = apply("")
	out = readAllString(t, resp)
	require.Equal(t, http.StatusOK, resp.StatusCode, out)
	assert.Contains(t, resp.Header.Get("Warning"), `line 8: key \"foo\" already set in map`)
	assert.Contains(t, out, `"foo":"foo2"`, "the last value wins")
}

func readAllString(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
