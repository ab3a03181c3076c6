package fieldmanager_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/fieldmanager"
)

// FuzzDecodeManagedFields: any managedFields JSON either fails to decode
// with ErrInvalidManagedFields or decodes into sets that encode and decode
// again to the same sets; an Update over such an object never panics.
func FuzzDecodeManagedFields(f *testing.F) {
	f.Add([]byte(`[{"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}}}}]`))
	f.Add([]byte(`[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{}}}}}}}]`))
	f.Add([]byte(`[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:finalizers":{"v:\"x\"":{}}},"f:x":{"i:3":{}}}}]`))
	f.Add([]byte(`[{"operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"k:{":{}}}]`))
	f.Add([]byte(`[{}]`))
	root, defs := fieldmanager.SchemaOf(reflect.TypeFor[core.Pod]())
	tc, err := fieldmanager.NewTypeConverter(root, defs)
	if err != nil {
		f.Fatal(err)
	}
	fm, err := fieldmanager.New(fieldmanager.Config{TypeConverter: tc, APIVersion: "v1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var entries []meta.ManagedFieldsEntry
		if json.Unmarshal(data, &entries) != nil {
			return
		}
		m, err := fieldmanager.DecodeManagedFields(entries)
		if err != nil {
			return
		}
		enc, err := m.Encode()
		if err != nil {
			t.Fatalf("encode of decoded fields: %v", err)
		}
		m2, err := fieldmanager.DecodeManagedFields(enc)
		if err != nil {
			t.Fatalf("decode of encoded fields: %v", err)
		}
		for k, vs := range m2.Fields {
			if !m.Fields[k].Set().Equals(vs.Set()) {
				t.Fatalf("manager %s: fields changed in a round trip", k)
			}
		}
		live := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "managedFields": toAny(t, entries)}}
		next := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "labels": map[string]any{"a": "b"}}}
		_, _ = fm.Update(live, next, "fuzz")
		_, _ = fm.Apply(live, next, "fuzz", false, false)
	})
}

func toAny(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzApplyConfiguration: any apply body (YAML or JSON) either fails with
// ErrInvalidObject or ErrConflict, or merges into an object that decodes
// into the kind's Go type and whose managedFields decode again.
func FuzzApplyConfiguration(f *testing.F) {
	f.Add([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 3}\n"))
	f.Add([]byte("spec:\n  template:\n    spec:\n      containers:\n      - {name: a, ports: [{containerPort: 80}, {containerPort: 80}]}\n"))
	f.Add([]byte("spec: {selector: {matchLabels: {a: b}}, template: {spec: {containers: [{name: a, env: [{name: X}]}]}}}"))
	f.Add([]byte(`{"spec":{"replicas":"three"}}`))
	f.Add([]byte("metadata: {finalizers: [a, a]}"))
	fm := newManager(&testing.T{}, reflect.TypeFor[apps.Deployment](), "apps/v1", "status")
	liveYAML := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers: [{name: a, image: x}]\n"
	f.Fuzz(func(t *testing.T, body []byte) {
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return
		}
		v, err := schema.DecodeJSON(j)
		if err != nil {
			return
		}
		cfg, ok := v.(map[string]any)
		if !ok {
			return
		}
		live := obj(t, liveYAML)
		res, err := fm.Apply(live, cfg, "fuzz", false, false)
		if err != nil {
			if !errors.Is(err, fieldmanager.ErrInvalidObject) && !errors.Is(err, fieldmanager.ErrConflict) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		b, err := json.Marshal(res.Object)
		if err != nil {
			t.Fatalf("marshal merged object: %v", err)
		}
		var d apps.Deployment
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("merged object does not decode as a Deployment: %v\n%s", err, b)
		}
		if _, err := fieldmanager.DecodeManagedFields(res.ManagedFields); err != nil {
			t.Fatalf("managedFields do not decode: %v", err)
		}
	})
}
