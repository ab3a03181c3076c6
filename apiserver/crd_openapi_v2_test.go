package apiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCustomSchemaV2 checks the Swagger 2.0 form of custom resource
// schemas against what kube-apiserver publishes in /openapi/v2.
func TestCustomSchemaV2(t *testing.T) {
	const meta = `"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}`
	const gvk = `"x-kubernetes-group-version-kind":[{"group":"g","kind":"K","version":"v1"}]`
	tests := []struct{ name, in, want string }{
		{
			"preserving the root: an object and its extensions only",
			`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"description":"d","properties":{` + meta + `},` + gvk + `}`,
			`{"type":"object",` + gvk + `}`,
		},
		{
			"combinators dropped, the root's meta properties kept",
			`{"type":"object","properties":{` + meta + `,"spec":{"type":"object","oneOf":[{"required":["a"]}],"anyOf":[{}],"not":{},"allOf":[{}],
				"properties":{"a":{"type":"string"}}}},` + gvk + `}`,
			`{"type":"object","properties":{` + meta + `,"spec":{"type":"object","properties":{"a":{"type":"string"}}}},` + gvk + `}`,
		},
		{
			"nullable nodes lose type, items and properties and leave required",
			`{"type":"object","required":["spec"],"properties":{"spec":{"type":"object","required":["a","b"],"properties":{
				"a":{"type":"array","nullable":true,"items":{"type":"string"}},"b":{"type":"string"}}}}}`,
			`{"type":"object","required":["spec"],"properties":{"spec":{"type":"object","required":["b"],"properties":{
				"a":{},"b":{"type":"string"}}}}}`,
		},
		{
			"a nullable additionalProperties drops required",
			`{"type":"object","properties":{"m":{"type":"object","required":["x"],"additionalProperties":{"type":"string","nullable":true}}}}`,
			`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{}}}}`,
		},
		{
			"preserving nodes lose items and properties, objects their type",
			`{"type":"object","properties":{"o":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string"}}},
				"l":{"type":"array","x-kubernetes-preserve-unknown-fields":true,"items":{"type":"string"}}}}`,
			`{"type":"object","properties":{"o":{"x-kubernetes-preserve-unknown-fields":true},"l":{"x-kubernetes-preserve-unknown-fields":true}}}`,
		},
		{
			"below items and additionalProperties too",
			`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","anyOf":[{}],"properties":{"n":{"type":"integer","nullable":true}}}},
				"m":{"type":"object","additionalProperties":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}`,
			`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"n":{}}}},
				"m":{"type":"object","additionalProperties":{"x-kubernetes-preserve-unknown-fields":true}}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.in), &in))
			got, err := json.Marshal(customSchemaV2(in))
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(got))
		})
	}
}

// TestCustomResourceOpenAPIV2: /openapi/v2 publishes a custom resource
// whose schema preserves unknown fields at the root as a bare object (as
// kube-apiserver does, so kubectl's validation accepts any field), and a
// structural one with its properties.
func TestCustomResourceOpenAPIV2(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.postCRD(t, "embedded-crd.yaml")
	ts.postCRD(t, "crontab-crd.yaml")
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.open.example.com"},
		"spec":{"group":"open.example.com","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	code, out := ts.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", []byte(crd))
	require.Equal(t, http.StatusCreated, code, string(out))
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	waitFor(t, "both custom kinds in /openapi/v2", func() bool {
		resp, body := ts.getOpenAPIV2(t, ts.http, "application/json", "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, json.Unmarshal(body, &doc))
		return doc.Definitions["com.example.open.v1.Thing"] != nil && doc.Definitions["com.example.embed.v1.Gadget"] != nil
	})
	assert.Equal(t, map[string]any{"type": "object", "x-kubernetes-group-version-kind": []any{
		map[string]any{"group": "open.example.com", "version": "v1", "kind": "Thing"}}}, doc.Definitions["com.example.open.v1.Thing"])

	gadget := doc.Definitions["com.example.embed.v1.Gadget"]
	props, _ := gadget["properties"].(map[string]any)
	require.Contains(t, props, "metadata")
	spec, _ := props["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"x-kubernetes-preserve-unknown-fields": true}, spec, "a preserving object loses type and properties")
}
