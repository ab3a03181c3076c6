package schema

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzValidate runs random JSON objects through the whole pipeline of a
// fixed schema (prune, default, validate, validate as an update): nothing
// may panic, and pruning and defaulting are idempotent.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"spec":{"name":"ab"}}`, `{"spec":null}`, `{"spec":{"tags":["a","a"],"ports":[{"name":"x"},{"name":"x"}]}}`,
		`{"spec":{"name":"abc","replicas":3,"ratio":0.5,"mode":"Fast","labels":{"a":"b"},"port":"80","either":{"a":"1"}}}`,
		`{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","x":1}},"free":{"a":[1,2,{"b":null}]}}}`,
		`{"spec":{"replicas":1e308,"ratio":-0,"step":9223372036854775807,"when":"2026-01-01T00:00:00Z"}}`,
		`[1,2]`, `"x"`, `null`,
	} {
		f.Add([]byte(seed))
	}
	sc, err := Compile(mustProps(f, fuzzSchema), nil)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeJSON(data)
		if err != nil {
			return
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		old := DeepCopyJSON(obj).(map[string]any)
		if _, ferr := sc.Prune(obj); ferr != nil {
			return
		}
		if again, _ := sc.Prune(obj); len(again) != 0 {
			t.Fatalf("second prune removed %v", again)
		}
		sc.Default(obj)
		once := DeepCopyJSON(obj)
		sc.Default(obj)
		if !EqualJSON(once, obj) {
			t.Fatalf("defaulting is not idempotent")
		}
		sc.Validate(ctx, obj)
		sc.ValidateUpdate(ctx, obj, old)
	})
}

// fuzzSchema is the validation fixture plus CEL rules.
var fuzzSchema = func() string {
	var p map[string]any
	if err := json.Unmarshal([]byte(fixture), &p); err != nil {
		panic(err)
	}
	spec := p["properties"].(map[string]any)["spec"].(map[string]any)
	spec["x-kubernetes-validations"] = []any{
		map[string]any{"rule": "!has(self.replicas) || self.replicas <= 5", "messageExpression": "'replicas ' + string(self.replicas)"},
		map[string]any{"rule": "!has(self.tags) || self.tags.all(t, t.size() < 10)"},
		map[string]any{"rule": "!has(oldSelf.name) || self.name == oldSelf.name", "message": "name is immutable"},
	}
	b, _ := json.Marshal(p)
	return string(b)
}()

// FuzzJSONSchemaProps decodes random schemas: decoding, re-encoding,
// checking and compiling never panic, and a decoded schema encodes to a
// document that decodes to the same encoding.
func FuzzJSONSchemaProps(f *testing.F) {
	for _, seed := range []string{
		fixture, `{"type":"object","additionalProperties":true}`, `{"items":[{"type":"string"}],"additionalItems":false}`,
		`{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":"string"}}}`,
		`{"dependencies":{"a":["b"],"c":{"type":"object"}},"enum":[1,"a",null,{"x":[]}],"default":{"a":1},"example":[]}`,
		`{"type":"object","x-kubernetes-validations":[{"rule":"self.size() > 0","optionalOldSelf":true,"reason":"FieldValueRequired"}]}`,
		`{"type":"object","properties":{"x":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p JSONSchemaProps
		if json.Unmarshal(data, &p) != nil {
			return
		}
		b1, err := json.Marshal(&p)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var q JSONSchemaProps
		if err := json.Unmarshal(b1, &q); err != nil {
			t.Fatalf("re-decode %s: %v", b1, err)
		}
		b2, _ := json.Marshal(&q)
		if string(b1) != string(b2) {
			t.Fatalf("round trip changed the schema:\n%s\n%s", b1, b2)
		}
		if len(data) > 4096 {
			return // checking huge random schemas (CEL cost estimation) is slow, not interesting
		}
		Check(&p, nil, CheckOptions{})
		if sc, err := Compile(&p, nil); err == nil {
			obj := map[string]any{"a": int64(1)}
			sc.Prune(obj)
			sc.Default(obj)
			sc.Validate(context.Background(), obj)
		}
	})
}
