package fieldmanager_test

import (
	"encoding/json"
	"testing"

	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/apiserver/fieldmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crdSchema is a custom resource's schema as a CRD carries it.
const crdSchema = `{
  "type": "object",
  "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
    "spec": {
      "type": "object",
      "properties": {
        "replicas": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "args": {"type": "array", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
          "items": {"type": "object", "properties": {"port": {"type": "integer"}, "protocol": {"type": "string", "default": "TCP"}, "name": {"type": "string"}}}},
        "selector": {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "atomic"},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "size": {"x-kubernetes-int-or-string": true}
      }
    }
  }
}`

func TestTypeConverterFromCRDSchema(t *testing.T) {
	var props schema.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(crdSchema), &props))
	tc, err := fieldmanager.NewTypeConverter(&props, nil)
	require.NoError(t, err)
	tests := []struct {
		name, object string
		wantFields   string // the fieldsV1 of applying object
		wantErr      string
	}{
		{"set", `{spec: {tags: [a, b]}}`, `{"f:spec":{"f:tags":{"v:\"a\"":{},"v:\"b\"":{}}}}`, ""},
		{"atomic list", `{spec: {args: [a, b]}}`, `{"f:spec":{"f:args":{}}}`, ""},
		{"map with defaulted key", `{spec: {ports: [{port: 80}]}}`, `{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}}}}}`, ""},
		{"atomic map", `{spec: {selector: {a: b}}}`, `{"f:spec":{"f:selector":{}}}`, ""},
		{"preserved unknown fields", `{spec: {extra: {deep: {x: 1}}}}`, `{"f:spec":{"f:extra":{"f:deep":{".":{},"f:x":{}}}}}`, ""},
		{"int or string", `{spec: {size: 10%}}`, `{"f:spec":{"f:size":{}}}`, ""},
		{"undeclared field", `{spec: {nope: 1}}`, "", ".spec.nope: field not declared in schema"},
		{"duplicate set item", `{spec: {tags: [a, a]}}`, "", "duplicate entries"},
		{"wrong type", `{spec: {replicas: [1]}}`, "", ".spec.replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm := managerFor(t, tc, "example.com/v1")
			cfg := obj(t, tt.object)
			cfg["apiVersion"], cfg["kind"] = "example.com/v1", "Widget"
			live := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}}
			cfg["metadata"] = map[string]any{"name": "w"}
			res, err := fm.Apply(live, cfg, "m", false, true)
			if tt.wantErr != "" {
				assert.ErrorIs(t, err, fieldmanager.ErrInvalidObject)
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, res.ManagedFields, 1)
			assert.JSONEq(t, tt.wantFields, string(res.ManagedFields[0].FieldsV1))
		})
	}
}

func TestNewTypeConverterInvalidSchema(t *testing.T) {
	ref := "#/components/schemas/missing"
	_, err := fieldmanager.NewTypeConverter(&schema.JSONSchemaProps{Ref: &ref}, nil)
	assert.ErrorIs(t, err, fieldmanager.ErrInvalidSchema)
	a, b := "#/definitions/b", "#/definitions/a"
	_, err = fieldmanager.NewTypeConverter(&schema.JSONSchemaProps{Ref: &a}, map[string]*schema.JSONSchemaProps{"a": {Ref: &a}, "b": {Ref: &b}})
	assert.ErrorIs(t, err, fieldmanager.ErrInvalidSchema, "cyclic $ref")
	mapType := "map"
	_, err = fieldmanager.NewTypeConverter(&schema.JSONSchemaProps{Type: "array", XListType: &mapType, Items: &schema.JSONSchemaPropsOrArray{Schema: &schema.JSONSchemaProps{Type: "object"}}}, nil)
	assert.ErrorIs(t, err, fieldmanager.ErrInvalidSchema, "map list without keys")
}
