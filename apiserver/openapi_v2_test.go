package apiserver

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

func (ts *testServer) getOpenAPIV2(t *testing.T, c *http.Client, accept, etag string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", ts.url+"/openapi/v2", nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestOpenAPIV2: /openapi/v2 serves one Swagger 2.0 document as JSON and
// as gnostic's protobuf (what client-go's OpenAPISchema asks for), with
// the same ETag for both and 304 for a matching If-None-Match.
func TestOpenAPIV2(t *testing.T) {
	ts := newTestServer(t, nil)
	cases := []struct {
		name, accept string
		wantCode     int
		wantType     string
	}{
		{"json", "application/json", http.StatusOK, "application/json"},
		{"no accept", "", http.StatusOK, "application/json"},
		{"wildcard", "*/*", http.StatusOK, "application/json"},
		{"protobuf (client-go's name)", mediaOpenAPIProtoOld + ", application/json", http.StatusOK, mediaOpenAPIProto},
		{"protobuf", mediaOpenAPIProto, http.StatusOK, mediaOpenAPIProto},
		{"unacceptable", "text/html", http.StatusNotAcceptable, "application/json"},
		{"malformed accept", ";;;,", http.StatusNotAcceptable, "application/json"},
	}
	etags := map[string]string{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := ts.getOpenAPIV2(t, ts.http, tc.accept, "")
			require.Equal(t, tc.wantCode, resp.StatusCode, string(body))
			assert.Equal(t, tc.wantType, resp.Header.Get("Content-Type"))
			assert.Equal(t, "Accept", resp.Header.Get("Vary"))
			if resp.StatusCode != http.StatusOK {
				return
			}
			etags[tc.wantType] = resp.Header.Get("Etag")
			if tc.wantType == "application/json" {
				var doc struct {
					Swagger     string
					Definitions map[string]map[string]any
					Paths       map[string]any
				}
				require.NoError(t, json.Unmarshal(body, &doc))
				assert.Equal(t, "2.0", doc.Swagger)
				pod := doc.Definitions["io.k8s.api.core.v1.Pod"]
				require.NotNil(t, pod)
				assert.Contains(t, pod["description"], "Pod")
				assert.Contains(t, doc.Paths, "/api/v1/namespaces/{namespace}/pods/{name}")
				assert.Contains(t, doc.Paths, "/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}")
				return
			}
			var d openapiv2.Document
			require.NoError(t, proto.Unmarshal(body, &d))
			assert.Equal(t, "2.0", d.Swagger)
			var found bool
			for _, p := range d.Definitions.AdditionalProperties {
				if p.Name == "io.k8s.api.core.v1.Pod" {
					found = true
					assert.NotEmpty(t, p.Value.Description)
					var gvk bool
					for _, x := range p.Value.VendorExtension {
						gvk = gvk || x.Name == "x-kubernetes-group-version-kind"
					}
					assert.True(t, gvk, "the Pod definition names its kind")
				}
			}
			assert.True(t, found, "the protobuf document has the Pod definition")
		})
	}
	require.NotEmpty(t, etags["application/json"])
	assert.Equal(t, etags["application/json"], etags[mediaOpenAPIProto], "one ETag for both forms, as kube-openapi")
	for _, accept := range []string{"application/json", mediaOpenAPIProtoOld} {
		resp, body := ts.getOpenAPIV2(t, ts.http, accept, etags["application/json"])
		assert.Equal(t, http.StatusNotModified, resp.StatusCode, accept)
		assert.Empty(t, body)
		resp, _ = ts.getOpenAPIV2(t, ts.http, accept, `"0123"`)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "a stale ETag gets the document")
	}

	// Unauthenticated clients are refused; a POST is not served.
	resp, _ := ts.getOpenAPIV2(t, ts.anon, "application/json", "")
	assert.Contains(t, []int{http.StatusUnauthorized, http.StatusForbidden}, resp.StatusCode)
	code, _ := ts.do(t, "POST", "/openapi/v2", "application/json", []byte(`{}`))
	assert.Equal(t, http.StatusMethodNotAllowed, code)
}

// TestSwagger2Schema: the v3 generator's shapes become Swagger 2.0 ones.
func TestSwagger2Schema(t *testing.T) {
	cases := []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{"ref", map[string]any{"$ref": "#/components/schemas/X"}, map[string]any{"$ref": "#/definitions/X"}},
		{"described ref", map[string]any{"allOf": []any{map[string]any{"$ref": "#/components/schemas/X"}}, "description": "d"},
			map[string]any{"$ref": "#/definitions/X", "description": "d"}},
		{"int-or-string", map[string]any{"x-kubernetes-int-or-string": true, "anyOf": []map[string]string{{"type": "integer"}}},
			map[string]any{"type": "string", "format": "int-or-string"}},
		{"v3-only members dropped", map[string]any{"type": "object", "nullable": true, "oneOf": []any{}, "x-kubernetes-preserve-unknown-fields": true},
			map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
		{"nested", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array",
			"items": map[string]any{"$ref": "#/components/schemas/Y"}}}, "additionalProperties": false},
			map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array",
				"items": map[string]any{"$ref": "#/definitions/Y"}}}, "additionalProperties": false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, swagger2Schema(tc.in))
		})
	}
}

// TestNegotiateOpenAPIV2 picks what kube-openapi picks.
func TestNegotiateOpenAPIV2(t *testing.T) {
	cases := []struct {
		accept, want string
		ok           bool
	}{
		{"", "application/json", true},
		{"application/json", "application/json", true},
		{"application/*;q=0.5", "application/json", true},
		{mediaOpenAPIProtoOld + ", application/json", mediaOpenAPIProto, true},
		{"application/json;q=0, " + mediaOpenAPIProto, mediaOpenAPIProto, true},
		{"text/plain, application/yaml", "", false},
		{",,;", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.accept, func(t *testing.T) {
			got, ok := negotiateOpenAPIV2(tc.accept)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzNegotiateOpenAPIV2: any Accept header gives one of the two media
// types or none, without panicking.
func FuzzNegotiateOpenAPIV2(f *testing.F) {
	for _, s := range []string{"", "application/json", mediaOpenAPIProtoOld, "*/*;q=0", "a/b;q=0.1, c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got, ok := negotiateOpenAPIV2(accept)
		if ok != (got == "application/json" || got == mediaOpenAPIProto) {
			t.Fatalf("%q: %q %v", accept, got, ok)
		}
	})
}
