package protobuf

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crdBody wraps a CustomResourceDefinition whose only version's
// openAPIV3Schema is props. Field numbers are written by hand from
// apiextensions/v1 generated.proto.
func crdBody(props pbMsg) []byte {
	version := pbMsg{}.str(1, "v1").varint(2, 1).varint(3, 1).varint(7, 0).msg(4, pbMsg{}.msg(1, props))
	spec := pbMsg{}.str(1, "example.com").
		msg(3, pbMsg{}.str(1, "widgets").str(2, "").str(4, "Widget").str(5, "")).
		str(4, "Namespaced").msg(7, version).varint(10, 0)
	return wrap("apiextensions.k8s.io/v1", "CustomResourceDefinition", pbMsg{}.msg(1, objectMetaPB("widgets.example.com")).msg(2, spec))
}

// crdJSON is the JSON of crdBody(props) with props written as schema.
func crdJSON(schema string) string {
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"metadata":{"name":"widgets.example.com","creationTimestamp":null},
		"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced",
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":` + schema + `}}]}}`
}

// props is a JSONSchemaProps as gogo writes it: every non-pointer scalar
// present (id, $schema, description, type, format, title, pattern and
// the non-pointer bools), then the given fields.
func props(typ string) pbMsg {
	return pbMsg{}.str(1, "").str(2, "").str(4, "").str(5, typ).str(6, "").str(7, "").
		varint(10, 0).varint(12, 0).str(15, "").varint(18, 0).varint(37, 0).varint(39, 0).varint(40, 0)
}

func jsonRaw(s string) pbMsg { return pbMsg{}.str(1, s) }

func TestCustomResourceDefinitionSchemaWrappers(t *testing.T) {
	str := props("string")
	tests := []struct {
		name  string
		props pbMsg
		want  string
	}{
		{"plain object", props("object"), `{"type":"object"}`},
		{
			"default, example and enum carry JSON; an empty JSON is null",
			props("string").msg(8, jsonRaw(`"a"`)).msg(36, jsonRaw(` { "k" : [1, 2.5, null] } `)).
				msg(20, jsonRaw(`"a"`)).msg(20, jsonRaw(`3`)).msg(20, pbMsg{}),
			`{"type":"string","default":"a","enum":["a",3,null],"example":{"k":[1,2.5,null]}}`,
		},
		{
			"pointer numbers keep a present zero; plain bools do not",
			props("integer").fixed64(9, 0x4059000000000000).varint(10, 1).fixed64(11, 0).
				varint(13, 0).varint(14, 0).varint(16, 5).varint(17, 0).varint(21, 9).varint(22, 0).fixed64(19, 0x3ff0000000000000),
			`{"type":"integer","maximum":100,"exclusiveMaximum":true,"minimum":0,"maxLength":0,"minLength":0,
				"maxItems":5,"minItems":0,"multipleOf":1,"maxProperties":9,"minProperties":0}`,
		},
		{
			"items: one schema",
			props("array").msg(24, pbMsg{}.msg(1, str)),
			`{"type":"array","items":{"type":"string"}}`,
		},
		{
			"items: a list of schemas wins over the schema",
			props("array").msg(24, pbMsg{}.msg(1, props("object")).msg(2, str).msg(2, props("integer"))),
			`{"type":"array","items":[{"type":"string"},{"type":"integer"}]}`,
		},
		{
			"items: empty is null",
			props("array").msg(24, pbMsg{}),
			`{"type":"array","items":null}`,
		},
		{
			"additionalProperties false, true, schema; additionalItems",
			props("object").msg(30, pbMsg{}.varint(1, 0)).msg(33, pbMsg{}.varint(1, 1)),
			`{"type":"object","additionalProperties":false,"additionalItems":true}`,
		},
		{
			"additionalProperties: the schema wins over allows",
			props("object").msg(30, pbMsg{}.varint(1, 1).msg(2, str)),
			`{"type":"object","additionalProperties":{"type":"string"}}`,
		},
		{
			"additionalProperties: schema occurrences are merged",
			props("object").msg(30, pbMsg{}.msg(2, pbMsg{}.str(5, "string")).msg(2, pbMsg{}.str(6, "date"))),
			`{"type":"object","additionalProperties":{"type":"string","format":"date"}}`,
		},
		{
			"dependencies: strings, schema, nothing",
			props("object").
				msg(32, pbMsg{}.str(1, "a").msg(2, pbMsg{}.msg(1, str).str(2, "b").str(2, "c"))).
				msg(32, pbMsg{}.str(1, "d").msg(2, pbMsg{}.msg(1, str))).
				msg(32, pbMsg{}.str(1, "e").msg(2, pbMsg{})),
			`{"type":"object","dependencies":{"a":["b","c"],"d":{"type":"string"},"e":null}}`,
		},
		{
			"properties, patternProperties, definitions, allOf, oneOf, anyOf, not",
			props("object").
				msg(29, pbMsg{}.str(1, "spec").msg(2, props("object").msg(29, pbMsg{}.str(1, "size").msg(2, props("integer"))))).
				msg(31, pbMsg{}.str(1, "^x-").msg(2, str)).
				msg(34, pbMsg{}.str(1, "def").msg(2, str)).
				msg(25, str).msg(26, props("integer")).msg(27, props("number")).msg(28, props("boolean")),
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}},
				"patternProperties":{"^x-":{"type":"string"}},"definitions":{"def":{"type":"string"}},
				"allOf":[{"type":"string"}],"oneOf":[{"type":"integer"}],"anyOf":[{"type":"number"}],"not":{"type":"boolean"}}`,
		},
		{
			"id, $schema, $ref, title, externalDocs, nullable",
			pbMsg{}.str(1, "urn:x").str(2, "http://json-schema.org/draft-04/schema#").str(3, "#/definitions/a").
				str(7, "T").msg(35, pbMsg{}.str(1, "docs").str(2, "https://example.com")).varint(37, 1),
			`{"id":"urn:x","$schema":"http://json-schema.org/draft-04/schema#","$ref":"#/definitions/a","title":"T",
				"externalDocs":{"description":"docs","url":"https://example.com"},"nullable":true}`,
		},
		{
			"x-kubernetes extensions and validation rules",
			props("object").varint(38, 0).varint(39, 1).varint(40, 1).str(41, "name").str(41, "proto").
				str(42, "map").str(43, "atomic").
				msg(44, pbMsg{}.str(1, "self.a < self.b").str(2, "").str(3, "'a is ' + string(self.a)").
					str(4, "FieldValueForbidden").str(5, ".a").varint(6, 1)).
				msg(44, pbMsg{}.str(1, "").str(2, "").str(3, "").str(5, "")),
			`{"type":"object","x-kubernetes-preserve-unknown-fields":false,"x-kubernetes-embedded-resource":true,
				"x-kubernetes-int-or-string":true,"x-kubernetes-list-map-keys":["name","proto"],
				"x-kubernetes-list-type":"map","x-kubernetes-map-type":"atomic",
				"x-kubernetes-validations":[{"rule":"self.a < self.b","messageExpression":"'a is ' + string(self.a)",
				"reason":"FieldValueForbidden","fieldPath":".a","optionalOldSelf":true},{"rule":""}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, gvk, err := ToJSON(crdBody(tc.props))
			require.NoError(t, err)
			assert.Equal(t, "apiextensions.k8s.io/v1, Kind=CustomResourceDefinition", gvk.String())
			assertSameJSON(t, crdJSON(tc.want), string(got))

			// and back: FromJSON writes the same wrapper forms (a null
			// member is an absent one, as when Kubernetes decodes it)
			pb, err := FromJSON(got)
			require.NoError(t, err)
			again, _, err := ToJSON(pb)
			require.NoError(t, err)
			assertSameJSON(t, crdJSON(strings.ReplaceAll(tc.want, `,"items":null`, "")), string(again))
		})
	}
}

// TestCustomResourceDefinitionFromJSONRefuses: the wrappers' JSON types are
// checked when a CRD is encoded; a server answers in JSON then.
func TestCustomResourceDefinitionFromJSONRefuses(t *testing.T) {
	for name, schema := range map[string]string{
		"items a number":                    `{"type":"array","items":3}`,
		"items an array of strings":         `{"type":"array","items":["a"]}`,
		"items a boolean":                   `{"type":"array","items":true}`,
		"additionalProperties a string":     `{"type":"object","additionalProperties":"yes"}`,
		"additionalProperties an array":     `{"type":"object","additionalProperties":[]}`,
		"dependencies of numbers":           `{"type":"object","dependencies":{"a":[1]}}`,
		"dependencies a boolean":            `{"type":"object","dependencies":{"a":true}}`,
		"unknown member in a nested schema": `{"type":"object","properties":{"a":{"typo":"string"}}}`,
		"unknown member in items":           `{"type":"array","items":{"typo":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := FromJSON([]byte(crdJSON(schema)))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrMalformed) || errors.Is(err, ErrUnknownField), "%v", err)
		})
	}
}

// TestCustomResourceDefinitionSpecAndStatus covers the messages around
// the schema: subresources, printer columns, selectable fields,
// conversion, status.
func TestCustomResourceDefinitionSpecAndStatus(t *testing.T) {
	version := pbMsg{}.str(1, "v2").varint(2, 1).varint(3, 0).varint(7, 1).str(8, "v2 is going").
		msg(5, pbMsg{}.msg(1, nil).msg(2, pbMsg{}.str(1, ".spec.replicas").str(2, ".status.replicas").str(3, ".status.selector"))).
		msg(6, pbMsg{}.str(1, "Size").str(2, "integer").str(3, "int32").str(4, "the size").varint(5, 1).str(6, ".spec.size")).
		msg(6, pbMsg{}.str(1, "Age").str(2, "date").str(3, "").str(4, "").varint(5, 0).str(6, ".metadata.creationTimestamp")).
		msg(9, pbMsg{}.str(1, ".spec.color"))
	names := pbMsg{}.str(1, "widgets").str(2, "widget").str(3, "wd").str(4, "Widget").str(5, "WidgetList").str(6, "all")
	conversion := pbMsg{}.str(1, "Webhook").msg(2, pbMsg{}.
		msg(2, pbMsg{}.msg(1, pbMsg{}.str(1, "ns").str(2, "svc").str(3, "/convert").varint(4, 8443)).bytes(2, []byte{1, 2, 3})).
		str(3, "v1").str(3, "v1beta1"))
	spec := pbMsg{}.str(1, "example.com").msg(3, names).str(4, "Cluster").msg(7, version).msg(9, conversion).varint(10, 0)
	status := pbMsg{}.
		msg(1, pbMsg{}.str(1, "Established").str(2, "True").msg(3, pbMsg{}.varint(1, 1704164645)).str(4, "InitialNamesAccepted").str(5, "ok").varint(6, 2)).
		msg(2, names).str(3, "v1").str(3, "v2").varint(4, 2)
	body := wrap("apiextensions.k8s.io/v1", "CustomResourceDefinition", pbMsg{}.msg(1, objectMetaPB("widgets.example.com")).msg(2, spec).msg(3, status))
	got, _, err := ToJSON(body)
	require.NoError(t, err)
	namesJSON := `{"plural":"widgets","singular":"widget","shortNames":["wd"],"kind":"Widget","listKind":"WidgetList","categories":["all"]}`
	assertSameJSON(t, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"metadata":{"name":"widgets.example.com","creationTimestamp":null},
		"spec":{"group":"example.com","names":`+namesJSON+`,"scope":"Cluster",
			"versions":[{"name":"v2","served":true,"storage":false,"deprecated":true,"deprecationWarning":"v2 is going",
				"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}},
				"additionalPrinterColumns":[
					{"name":"Size","type":"integer","format":"int32","description":"the size","priority":1,"jsonPath":".spec.size"},
					{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}],
				"selectableFields":[{"jsonPath":".spec.color"}]}],
			"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"namespace":"ns","name":"svc","path":"/convert","port":8443},"caBundle":"AQID"},
				"conversionReviewVersions":["v1","v1beta1"]}}},
		"status":{"conditions":[{"type":"Established","status":"True","lastTransitionTime":"2024-01-02T03:04:05Z","reason":"InitialNamesAccepted","message":"ok","observedGeneration":2}],
			"acceptedNames":`+namesJSON+`,"storedVersions":["v1","v2"],"observedGeneration":2}}`, string(got))

	// An empty status and webhook: the lists without omitempty are null, as
	// Kubernetes writes nil slices.
	got, _, err = ToJSON(wrap("apiextensions.k8s.io/v1", "CustomResourceDefinition", pbMsg{}.
		msg(2, pbMsg{}.str(1, "example.com").msg(9, pbMsg{}.str(1, "Webhook").msg(2, nil))).msg(3, nil)))
	require.NoError(t, err)
	assertSameJSON(t, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"spec":{"group":"example.com","versions":null,"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":null}}},
		"status":{"conditions":null,"storedVersions":null}}`, string(got))
}

func TestCustomResourceDefinitionMalformed(t *testing.T) {
	tests := []struct {
		name  string
		props pbMsg
		msg   string
	}{
		{"default not JSON", props("string").msg(8, jsonRaw(`{"a":`)), "apiext.JSON field 1: raw JSON does not parse"},
		{"enum item not JSON", props("string").msg(20, jsonRaw(`nope`)), "apiext.JSON field 1: raw JSON does not parse"},
		{"JSON raw is no nested object", props("string").msg(8, pbMsg{}.bytes(1, wrap("v1", "Namespace", nil))), "apiext.JSON field 1"},
		{"JSON raw as varint", props("string").msg(36, pbMsg{}.varint(1, 1)), "apiext.JSON field 1: wire type 0"},
		{"items schema as varint", props("array").msg(24, pbMsg{}.varint(1, 1)), "apiext.JSONSchemaPropsOrArray field 1: wire type 0, want 2"},
		{"items list as varint", props("array").msg(24, pbMsg{}.varint(2, 1)), "apiext.JSONSchemaPropsOrArray field 2"},
		{"allows as string", props("object").msg(30, pbMsg{}.str(1, "yes")), "apiext.JSONSchemaPropsOrBool field 1: wire type 2, want 0"},
		{"additionalProperties schema as varint", props("object").msg(30, pbMsg{}.varint(2, 1)), "apiext.JSONSchemaPropsOrBool field 2"},
		{"dependency strings as varint", props("object").msg(32, pbMsg{}.str(1, "a").msg(2, pbMsg{}.varint(2, 1))), "apiext.JSONSchemaPropsOrStringArray field 2"},
		{"truncated wrapper", props("array").msg(24, pbMsg{0x0a, 0x05}), "apiext.JSONSchemaPropsOrArray"},
		{"truncated nested schema", props("array").msg(24, pbMsg{}.msg(2, pbMsg{0x2a, 0x07, 's'})), "apiext.JSONSchemaProps"},
		{"maximum as varint", props("number").varint(9, 1), "apiext.JSONSchemaProps field 9"},
		{"maximum NaN", props("number").fixed64(9, 0x7ff8000000000001), "no JSON form"},
		{"maxLength as string", props("string").str(13, "1"), "apiext.JSONSchemaProps field 13"},
		{"rule as varint", props("object").msg(44, pbMsg{}.varint(1, 1)), "apiext.ValidationRule field 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := ToJSON(crdBody(tc.props))
			require.ErrorIs(t, err, ErrMalformed)
			assert.Nil(t, out)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// TestCustomResourceDefinitionDeepSchema nests schemas through every
// wrapper: nesting within the limit converts, beyond it is refused.
func TestCustomResourceDefinitionDeepSchema(t *testing.T) {
	nest := func(levels int) pbMsg {
		p := props("string")
		for i := 0; i < levels; i++ {
			switch i % 4 {
			case 0:
				p = props("object").msg(29, pbMsg{}.str(1, "p").msg(2, p))
			case 1:
				p = props("array").msg(24, pbMsg{}.msg(2, p))
			case 2:
				p = props("object").msg(30, pbMsg{}.msg(2, p))
			default:
				p = props("object").msg(32, pbMsg{}.str(1, "d").msg(2, pbMsg{}.msg(1, p)))
			}
		}
		return p
	}
	got, _, err := ToJSON(crdBody(nest(40)))
	require.NoError(t, err)
	checkOutput(t, crdBody(nest(40)))
	assert.Contains(t, string(got), `"additionalProperties":{"type":"array","items":[{"type":"object","properties":{"p":`)

	_, _, err = ToJSON(crdBody(nest(100)))
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "nesting deeper")
}

// TestCustomResourceDefinitionOutputBound writes many empty wrappers and
// map entries, the schema's cheapest fields per output byte, and checks
// the output stays within the bound.
func TestCustomResourceDefinitionOutputBound(t *testing.T) {
	p := pbMsg{}
	for i := 0; i < 2000; i++ {
		p = p.msg(29, nil).msg(32, pbMsg{}.msg(2, nil)).msg(30, nil).msg(24, nil).msg(20, nil).msg(44, nil)
	}
	checkOutput(t, crdBody(p))
}
