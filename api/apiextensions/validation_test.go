package apiextensions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// validCRD returns a minimal valid CRD; tests break one thing in it.
func validCRD() *CustomResourceDefinition {
	crd := &CustomResourceDefinition{
		ObjectMeta: meta.ObjectMeta{Name: "foos.example.com"},
		Spec: CustomResourceDefinitionSpec{
			Group: "example.com", Scope: NamespaceScoped,
			Names: CustomResourceDefinitionNames{Plural: "foos", Kind: "Foo"},
			Versions: []CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &CustomResourceValidation{OpenAPIV3Schema: mustSchema(`{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}`)}}},
		},
	}
	SetDefaults(crd)
	return crd
}

func mustSchema(s string) *JSONSchemaProps {
	p := &JSONSchemaProps{}
	if err := json.Unmarshal([]byte(s), p); err != nil {
		panic(err)
	}
	return p
}

func errStrings(t *testing.T, crd *CustomResourceDefinition) []string {
	t.Helper()
	var out []string
	for _, e := range ValidateCustomResourceDefinition(crd) {
		out = append(out, e.Error())
	}
	return out
}

func TestValidateCustomResourceDefinition(t *testing.T) {
	schemaOf := func(s string) func(*CustomResourceDefinition) {
		return func(c *CustomResourceDefinition) { c.Spec.Versions[0].Schema.OpenAPIV3Schema = mustSchema(s) }
	}
	tests := []struct {
		name   string
		mutate func(*CustomResourceDefinition)
		want   []string
	}{
		{"valid", func(*CustomResourceDefinition) {}, nil},
		{"name must be plural.group", func(c *CustomResourceDefinition) { c.Name = "bars.example.com" },
			[]string{`metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group`}},
		{"group needs a dot", func(c *CustomResourceDefinition) { c.Spec.Group = "example"; c.Name = "foos.example" },
			[]string{`spec.group: Invalid value: "example": should be a domain with at least one dot`}},
		{"scope", func(c *CustomResourceDefinition) { c.Spec.Scope = "Global" },
			[]string{`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`}},
		{"no storage version", func(c *CustomResourceDefinition) { c.Spec.Versions[0].Storage = false },
			[]string{`spec.versions: Invalid value: [v1]: must have exactly one version marked as storage version`}},
		{"two storage versions", func(c *CustomResourceDefinition) {
			v := c.Spec.Versions[0]
			v.Name = "v2"
			c.Spec.Versions = append(c.Spec.Versions, v)
		}, []string{`spec.versions: Invalid value: [v1 v2]: must have exactly one version marked as storage version`,
			`status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2`}},
		{"duplicate versions", func(c *CustomResourceDefinition) {
			v := c.Spec.Versions[0]
			v.Storage = false
			c.Spec.Versions = append(c.Spec.Versions, v)
		}, []string{`spec.versions: Invalid value: [v1 v1]: must contain unique version names`}},
		{"version name", func(c *CustomResourceDefinition) {
			c.Spec.Versions[0].Name = "V1"
			c.Status.StoredVersions = []string{"V1"}
		},
			[]string{`spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{"kind and listKind", func(c *CustomResourceDefinition) { c.Spec.Names.ListKind = "Foo" },
			[]string{`spec.names.listKind: Invalid value: "Foo": kind and listKind may not be the same`}},
		{"kind required", func(c *CustomResourceDefinition) { c.Spec.Names.Kind = "" },
			[]string{`spec.names.kind: Required value`}},
		{"short name", func(c *CustomResourceDefinition) { c.Spec.Names.ShortNames = []string{"f_o"} },
			[]string{`spec.names.shortNames[0]: Invalid value: "f_o": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{"schema required", func(c *CustomResourceDefinition) { c.Spec.Versions[0].Schema = nil },
			[]string{`spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required`}},
		{"non-structural: missing type", schemaOf(`{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`}},
		{"non-structural: type in anyOf", schemaOf(`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"type":"object"}]}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`}},
		{"non-structural: field only in allOf", schemaOf(`{"type":"object","properties":{"spec":{"type":"object"}},"allOf":[{"properties":{"b":{"minLength":1}}}]}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[b]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.allOf[0].properties[b]`}},
		{"$ref refused", schemaOf(`{"type":"object","properties":{"spec":{"$ref":"#/definitions/spec"}}}`),
			[]string{
				`spec.versions[0].schema.openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported`,
			}},
		{"definitions refused", schemaOf(`{"type":"object","definitions":{"a":{"type":"object","properties":{"b":{"$ref":"#/definitions/a"}}}}}`),
			[]string{
				`spec.versions[0].schema.openAPIV3Schema.definitions: Forbidden: definitions is not supported`,
				`spec.versions[0].schema.openAPIV3Schema.definitions[a].properties[b].$ref: Forbidden: $ref is not supported`,
			}},
		{"metadata restricted", schemaOf(`{"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`}},
		{"uniqueItems", schemaOf(`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"items":{"type":"string"}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`}},
		{"properties and additionalProperties", schemaOf(`{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":{"type":"string"}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`}},
		{"list map keys", schemaOf(`{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"k":{"type":"string"}}}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`}},
		{"list map key must be required or defaulted", schemaOf(`{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"}}}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`}},
		{"bad default", schemaOf(`{"type":"object","properties":{"a":{"type":"integer","default":"x"}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[a].default: Invalid value: "string":  in body must be of type integer: "string"`}},
		{"default with unknown fields", schemaOf(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"default":{"c":"d"}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[a].default: Invalid value: map[c:d]: must not have unknown fields`}},
		{"default in metadata", schemaOf(`{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","default":"x"}}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`}},
		{"CEL does not compile", schemaOf(`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.nope > 1"}],"properties":{"a":{"type":"integer"}}}}}`),
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:\"self.nope > 1\", Message:\"\", MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^"}},
		{"CEL not a bool", schemaOf(`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.a + 1"}],"properties":{"a":{"type":"integer"}}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.a + 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool`}},
		{"CEL oldSelf in a list", schemaOf(`{"type":"object","properties":{"a":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.properties[a].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[0].schema.openAPIV3Schema.properties[a]`}},
		{"CEL too expensive", schemaOf(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x.contains(y)))"}]}}}`),
			[]string{
				`spec.versions[0].schema.openAPIV3Schema.properties[a].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
				`spec.versions[0].schema.openAPIV3Schema.properties[a].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
				`spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
			}},
		{"rule empty", schemaOf(`{"type":"object","x-kubernetes-validations":[{"rule":" "}]}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified`}},
		{"bad reason", schemaOf(`{"type":"object","x-kubernetes-validations":[{"rule":"true","reason":"Nope"}]}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`}},
		{"bad fieldPath", schemaOf(`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"true","fieldPath":".b"}]}`),
			[]string{`spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].fieldPath: Invalid value: ".b": fieldPath must be a valid path`}},
		{"status root restricted", func(c *CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &CustomResourceSubresources{Status: &CustomResourceSubresourceStatus{}}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Nullable = true
		}, []string{
			`spec.versions[0].schema.openAPIV3Schema: Invalid value: "": only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
			`spec.versions[0].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root`,
		}},
		{"scale paths", func(c *CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &CustomResourceSubresources{Scale: &CustomResourceSubresourceScale{SpecReplicasPath: ".replicas", StatusReplicasPath: "status.replicas"}}
		}, []string{
			`spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec`,
			`spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .`,
		}},
		{"printer column", func(c *CustomResourceDefinition) {
			c.Spec.Versions[0].AdditionalPrinterColumns = []CustomResourceColumnDefinition{{Name: "X", Type: "float", JSONPath: "spec.x"}}
		}, []string{
			`spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string`,
			`spec.versions[0].additionalPrinterColumns[0].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .`,
		}},
		{"deprecation warning", func(c *CustomResourceDefinition) { w := "x"; c.Spec.Versions[0].DeprecationWarning = &w },
			[]string{`spec.versions[0].deprecationWarning: Invalid value: "x": can only be set for deprecated versions`}},
		{"webhook conversion", func(c *CustomResourceDefinition) { c.Spec.Conversion.Strategy = WebhookConverter },
			[]string{`spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"`}},
		{"preserveUnknownFields", func(c *CustomResourceDefinition) { c.Spec.PreserveUnknownFields = true },
			[]string{`spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead`}},
		{"protected group", func(c *CustomResourceDefinition) { c.Spec.Group = "x.k8s.io"; c.Name = "foos.x.k8s.io" },
			[]string{`metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`}},
		{"stored version removed", func(c *CustomResourceDefinition) { c.Status.StoredVersions = []string{"v0", "v1"} },
			[]string{`status.storedVersions[0]: Invalid value: "v0": missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions`}},
		{"selectable field", func(c *CustomResourceDefinition) {
			c.Spec.Versions[0].SelectableFields = []SelectableField{{JSONPath: ".spec.nope"}, {JSONPath: ".spec"}}
		}, []string{
			`spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field`,
			`spec.versions[0].selectableFields[1].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := validCRD()
			tt.mutate(crd)
			assert.Equal(t, tt.want, errStrings(t, crd))
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	old := validCRD()
	old.SetCondition(CustomResourceDefinitionCondition{Type: Established, Status: meta.ConditionTrue})
	crd := meta.DeepCopy(old)
	crd.Spec.Group, crd.Name = "other.com", "foos.other.com"
	crd.Spec.Names.Plural = "bars"
	crd.Spec.Names.Kind = "Bar"
	crd.Spec.Scope = ClusterScoped
	var got []string
	for _, e := range ValidateCustomResourceDefinitionUpdate(crd, old) {
		got = append(got, e.Error())
	}
	assert.Contains(t, got, `spec.scope: Invalid value: "Cluster": field is immutable`)
	assert.Contains(t, got, `spec.names.kind: Invalid value: "Bar": field is immutable`)
	assert.Contains(t, got, `spec.group: Invalid value: "other.com": field is immutable`)
	assert.Contains(t, got, `spec.names.plural: Invalid value: "bars": field is immutable`)
}

// TestBadInput feeds oversized and pathological schemas through decoding
// and validation: each gets a clear error.
func TestBadInput(t *testing.T) {
	t.Run("10 MiB schema", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i := 0; b.Len() < 10<<20; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"field` + strings.Repeat("x", 200) + string(rune('a'+i%26)) + itoa(i) + `":{"type":"string","description":"` + strings.Repeat("d", 300) + `"}`)
		}
		b.WriteString(`}}`)
		crd := validCRD()
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema = mustSchema(b.String())
		assert.Equal(t, []string{`spec.versions[0].schema.openAPIV3Schema: Too long: may not be more than 3145728 bytes`}, errStrings(t, crd))
	})
	t.Run("deeply nested schema", func(t *testing.T) {
		s := `{"type":"string"}`
		for i := 0; i < 600; i++ {
			s = `{"type":"object","properties":{"a":` + s + `}}`
		}
		crd := validCRD()
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema = mustSchema(s)
		errs := errStrings(t, crd)
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0], "nested deeper than 512 levels")
	})
	t.Run("cyclic $ref", func(t *testing.T) {
		crd := validCRD()
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema = mustSchema(`{"type":"object","properties":{"spec":{"$ref":"#/properties/spec"}}}`)
		assert.Equal(t, []string{`spec.versions[0].schema.openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported`}, errStrings(t, crd))
	})
	t.Run("malformed JSON", func(t *testing.T) {
		for _, doc := range []string{
			`{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"additionalProperties":"yes"}}}]}}`,
			`{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"type":5}}}]}}`,
			`{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"default":}}}]}}`,
		} {
			assert.Error(t, json.Unmarshal([]byte(doc), &CustomResourceDefinition{}), doc)
		}
	})
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	typ, ok := s.ByKind(meta.GroupVersionKind{Group: GroupName, Version: Version, Kind: "CustomResourceDefinition"})
	require.True(t, ok)
	assert.Equal(t, "customresourcedefinitions", typ.Resource)
	assert.Equal(t, "customresourcedefinition", typ.Singular)
	assert.False(t, typ.Namespaced)
	assert.Equal(t, []string{"crd", "crds"}, typ.ShortNames)
	assert.Equal(t, []string{"api-extensions"}, typ.Categories)

	obj, _, err := s.Decode([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"foos.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`))
	require.NoError(t, err)
	typ.Default(obj)
	assert.Empty(t, typ.Validate(obj))
	assert.Empty(t, typ.ValidateUpdate(obj, obj))
	assert.Panics(t, func() { Register(s) })
}
