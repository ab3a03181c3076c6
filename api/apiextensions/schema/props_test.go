package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPropsJSON checks the hand-written (un)marshalling of the union
// types and of raw JSON values, which must read and write exactly what
// Kubernetes does.
func TestPropsJSON(t *testing.T) {
	tests := []struct {
		name, in, out string
		check         func(t *testing.T, p *JSONSchemaProps)
	}{
		{"additionalProperties false", `{"additionalProperties":false}`, `{"additionalProperties":false}`,
			func(t *testing.T, p *JSONSchemaProps) {
				assert.Equal(t, &JSONSchemaPropsOrBool{Allows: false}, p.AdditionalProperties)
			}},
		{"additionalProperties true", `{"additionalProperties":true}`, `{"additionalProperties":true}`,
			func(t *testing.T, p *JSONSchemaProps) { assert.True(t, p.AdditionalProperties.Allows) }},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"additionalProperties":{"type":"string"}}`,
			func(t *testing.T, p *JSONSchemaProps) {
				assert.True(t, p.AdditionalProperties.Allows)
				assert.Equal(t, "string", p.AdditionalProperties.Schema.Type)
			}},
		{"items schema", `{"items":{"type":"integer"}}`, `{"items":{"type":"integer"}}`,
			func(t *testing.T, p *JSONSchemaProps) { assert.Equal(t, "integer", p.Items.Schema.Type) }},
		{"items array", `{"items":[{"type":"integer"},{"type":"string"}]}`, `{"items":[{"type":"integer"},{"type":"string"}]}`,
			func(t *testing.T, p *JSONSchemaProps) { assert.Len(t, p.Items.JSONSchemas, 2) }},
		{"dependencies", `{"dependencies":{"a":["b","c"],"d":{"required":["e"]}}}`, `{"dependencies":{"a":["b","c"],"d":{"required":["e"]}}}`,
			func(t *testing.T, p *JSONSchemaProps) {
				assert.Equal(t, []string{"b", "c"}, p.Dependencies["a"].Property)
				assert.Equal(t, []string{"e"}, p.Dependencies["d"].Schema.Required)
			}},
		{"raw values kept", `{"default":{"b":[1.50, "x", null]},"example":12345678901234567890,"enum":["a",1,{"k":true},null]}`,
			`{"default":{"b":[1.50,"x",null]},"example":12345678901234567890,"enum":["a",1,{"k":true},null]}`,
			func(t *testing.T, p *JSONSchemaProps) {
				v, err := p.Default.Value()
				require.NoError(t, err)
				assert.Equal(t, map[string]any{"b": []any{1.5, "x", nil}}, v)
				assert.Nil(t, p.Enum[3].Raw)
			}},
		{"null default is no default (as in Kubernetes)", `{"default":null}`, `{}`,
			func(t *testing.T, p *JSONSchemaProps) { assert.Nil(t, p.Default) }},
		{"extensions", `{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true,"x-kubernetes-int-or-string":true,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a"],"x-kubernetes-map-type":"atomic","x-kubernetes-validations":[{"rule":"true","message":"m","messageExpression":"'m'","reason":"FieldValueForbidden","fieldPath":".a","optionalOldSelf":false}]}`,
			`{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true,"x-kubernetes-int-or-string":true,"x-kubernetes-list-map-keys":["a"],"x-kubernetes-list-type":"map","x-kubernetes-map-type":"atomic","x-kubernetes-validations":[{"rule":"true","message":"m","messageExpression":"'m'","reason":"FieldValueForbidden","fieldPath":".a","optionalOldSelf":false}]}`,
			func(t *testing.T, p *JSONSchemaProps) { assert.False(t, *p.XValidations[0].OptionalOldSelf) }},
		{"ref and meta keywords", `{"$ref":"#/x","$schema":"http://json-schema.org/schema#","id":"x","nullable":true,"externalDocs":{"url":"u"}}`,
			`{"id":"x","$schema":"http://json-schema.org/schema#","$ref":"#/x","externalDocs":{"url":"u"},"nullable":true}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &JSONSchemaProps{}
			require.NoError(t, json.Unmarshal([]byte(tt.in), p))
			if tt.check != nil {
				tt.check(t, p)
			}
			out, err := json.Marshal(p)
			require.NoError(t, err)
			assert.JSONEq(t, tt.out, string(out))
		})
	}
}

func TestPropsJSONErrors(t *testing.T) {
	for _, in := range []string{`{"additionalProperties":"x"}`, `{"additionalProperties":1}`, `{"items":{"type":1}}`, `{"default":}`, `{"x-kubernetes-list-map-keys":"a"}`} {
		assert.Error(t, json.Unmarshal([]byte(in), &JSONSchemaProps{}), in)
	}
}

func TestDecodeJSON(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"i":1,"big":12345678901234567890,"f":1.5,"e":1e3,"s":"x","b":true,"n":null,"l":[1,{"a":2}]}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"i": int64(1), "big": 1.2345678901234567e19, "f": 1.5, "e": 1000.0, "s": "x", "b": true, "n": nil,
		"l": []any{int64(1), map[string]any{"a": int64(2)}}}, v)
	for _, bad := range []string{``, `{`, `{} {}`, `[1e999]`} {
		_, err := DecodeJSON([]byte(bad))
		assert.ErrorIs(t, err, ErrInvalidJSON, bad)
	}
}
