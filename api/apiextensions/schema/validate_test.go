package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

const fixture = `{"type":"object","properties":{
 "spec":{"type":"object","required":["name"],"properties":{
  "name":{"type":"string","minLength":2,"maxLength":8,"pattern":"^[a-z]+$"},
  "replicas":{"type":"integer","minimum":1,"maximum":10,"format":"int32"},
  "ratio":{"type":"number","exclusiveMinimum":true,"minimum":0,"exclusiveMaximum":true,"maximum":1,"multipleOf":0.25},
  "step":{"type":"integer","multipleOf":5},
  "mode":{"type":"string","enum":["Fast","Safe"]},
  "level":{"type":"integer","enum":[1,2]},
  "enabled":{"type":"boolean"},
  "maybe":{"type":"string","nullable":true},
  "port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
  "email":{"type":"string","format":"email"},
  "when":{"type":"string","format":"date-time"},
  "mem":{"type":"string","format":"quantity"},
  "tags":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string"},"x-kubernetes-list-type":"set"},
  "labels":{"type":"object","maxProperties":2,"minProperties":1,"additionalProperties":{"type":"string","maxLength":3}},
  "closed":{"type":"object","additionalProperties":false},
  "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
  "either":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":[{"required":["a"]},{"required":["b"]}]},
  "some":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]},
  "notb":{"type":"object","properties":{"b":{"type":"string"}},"not":{"required":["b"]}},
  "all":{"type":"string","allOf":[{"minLength":2},{"maxLength":3}]},
  "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
  "template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}
 }}}}`

func TestValidate(t *testing.T) {
	sc := mustCompile(t, fixture)
	wrap := func(spec string) string {
		return `{"apiVersion":"x.io/v1","kind":"X","metadata":{"name":"a"},"spec":` + spec + `}`
	}
	tests := []struct {
		name string
		spec string
		want []string
	}{
		{"valid", `{"name":"abc","replicas":3,"ratio":0.5,"step":10,"mode":"Fast","level":2,"enabled":true,"maybe":null,"port":"http",
			"email":"a@b.c","when":"2026-01-02T03:04:05Z","mem":"1Gi","tags":["a","b"],"labels":{"a":"b"},"closed":{},
			"ports":[{"name":"a"},{"name":"b"}],"either":{"a":"x"},"some":{"b":"y"},"notb":{},"all":"abc",
			"free":{"anything":[1,{"x":2}]},"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}}`, nil},
		{"required", `{}`, []string{`spec.name: Required value`}},
		{"type", `{"name":"abc","replicas":"3"}`, []string{`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		{"null not nullable", `{"name":null}`, []string{`spec.name: Invalid value: "null": spec.name in body must be of type string: "null"`}},
		{"integral float is an integer", `{"name":"abc","replicas":3.0}`, nil},
		{"fraction is not an int32", `{"name":"abc","replicas":3.5}`, []string{`spec.replicas: Invalid value: "float64": spec.replicas in body must be of type int32: "float64"`}},
		{"too long", `{"name":"abcdefghij"}`, []string{`spec.name: Too long: may not be more than 8 bytes`}},
		{"too short", `{"name":"a"}`, []string{`spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long`}},
		{"pattern", `{"name":"AB"}`, []string{`spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$'`}},
		{"maximum", `{"name":"ab","replicas":11}`, []string{`spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`}},
		{"minimum", `{"name":"ab","replicas":0}`, []string{`spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1`}},
		{"int32 range", `{"name":"ab","replicas":4294967296}`, []string{
			`spec.replicas: Invalid value: 4294967296: Checked value must be of type integer with format int32 in spec.replicas`,
			`spec.replicas: Invalid value: 4294967296: spec.replicas in body should be less than or equal to 10`}},
		{"exclusive bounds", `{"name":"ab","ratio":1}`, []string{`spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1`}},
		{"exclusive minimum", `{"name":"ab","ratio":0}`, []string{`spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0`}},
		{"multipleOf float", `{"name":"ab","ratio":0.3}`, []string{`spec.ratio: Invalid value: 0.3: spec.ratio in body should be a multiple of 0.25`}},
		{"multipleOf int", `{"name":"ab","step":7}`, []string{`spec.step: Invalid value: 7: spec.step in body should be a multiple of 5`}},
		{"enum", `{"name":"ab","mode":"Slow"}`, []string{`spec.mode: Unsupported value: "Slow": supported values: "Fast", "Safe"`}},
		{"numeric enum", `{"name":"ab","level":3}`, []string{`spec.level: Unsupported value: 3: supported values: "1", "2"`}},
		{"enum and type", `{"name":"ab","mode":5}`, []string{
			`spec.mode: Invalid value: "integer": spec.mode in body must be of type string: "integer"`,
			`spec.mode: Unsupported value: 5: supported values: "Fast", "Safe"`}},
		{"boolean", `{"name":"ab","enabled":"yes"}`, []string{`spec.enabled: Invalid value: "string": spec.enabled in body must be of type boolean: "string"`}},
		{"int-or-string", `{"name":"ab","port":true}`, []string{
			`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`,
			`<nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf)`,
			`spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"`}},
		{"format email", `{"name":"ab","email":"nope"}`, []string{`spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"`}},
		{"format date-time", `{"name":"ab","when":"yesterday"}`, []string{`spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`}},
		{"format quantity", `{"name":"ab","mem":"1 GB"}`, []string{`spec.mem: Invalid value: "1 GB": spec.mem in body must be of type quantity: "1 GB"`}},
		{"minItems", `{"name":"ab","tags":[]}`, []string{`spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items`}},
		{"maxItems", `{"name":"ab","tags":["a","b","c","d"]}`, []string{`spec.tags: Too many: 4: must have at most 3 items`}},
		{"item type", `{"name":"ab","tags":["a",1]}`, []string{`spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"`}},
		{"set duplicates", `{"name":"ab","tags":["a","b","a"]}`, []string{`spec.tags[2]: Duplicate value: "a"`}},
		{"map duplicates", `{"name":"ab","ports":[{"name":"a","port":1},{"name":"a","port":2}]}`, []string{`spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}`}},
		{"map value", `{"name":"ab","labels":{"a":"long"}}`, []string{`spec.labels.a: Too long: may not be more than 3 bytes`}},
		{"maxProperties", `{"name":"ab","labels":{"a":"1","b":"2","c":"3"}}`, []string{`spec.labels: Too many: 3: must have at most 2 items`}},
		{"minProperties", `{"name":"ab","labels":{}}`, []string{`spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties`}},
		{"additionalProperties false", `{"name":"ab","closed":{"x":1}}`, []string{`spec.closed: Invalid value: "x": spec.closed.x in body is a forbidden property`}},
		{"oneOf none", `{"name":"ab","either":{}}`, []string{
			`<nil>: Invalid value: "": "spec.either" must validate one and only one schema (oneOf). Found none valid`,
			`spec.either.a: Required value`}},
		{"oneOf both", `{"name":"ab","either":{"a":"1","b":"2"}}`, []string{`<nil>: Invalid value: "": "spec.either" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		{"anyOf", `{"name":"ab","some":{}}`, []string{
			`<nil>: Invalid value: "": "spec.some" must validate at least one schema (anyOf)`,
			`spec.some.a: Required value`}},
		{"not", `{"name":"ab","notb":{"b":"x"}}`, []string{`<nil>: Invalid value: "": "spec.notb" must not validate the schema (not)`}},
		{"allOf", `{"name":"ab","all":"abcd"}`, []string{
			`spec.all: Too long: may not be more than 3 bytes`,
			`<nil>: Invalid value: "": "spec.all" must validate all the schemas (allOf)`}},
		{"embedded resource", `{"name":"ab","template":{"kind":"pod!","metadata":{"name":"a/b"}}}`, []string{
			`spec.template.apiVersion: Required value`,
			`spec.template.kind: Invalid value: "pod!": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
			`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, validate(t, sc, wrap(tt.spec)))
		})
	}
}

func TestValidateRootType(t *testing.T) {
	sc := mustCompile(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"integer"}}}}}}`)
	assert.Equal(t, []string{`a[0].b: Invalid value: "string": a[0].b in body must be of type integer: "string"`},
		validate(t, sc, `{"a":[{"b":"x"}]}`))
}

func TestNilSchema(t *testing.T) {
	sc, err := Compile(nil, nil)
	assert.NoError(t, err)
	obj := mustObj(t, `{"x":1}`)
	assert.Empty(t, sc.Validate(t.Context(), obj))
	sc.Default(obj)
	pruned, ferr := sc.Prune(obj)
	assert.Nil(t, ferr)
	assert.Empty(t, pruned)
	assert.Equal(t, map[string]any{"x": int64(1)}, obj)
}
