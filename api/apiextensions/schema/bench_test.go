package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchSchema is a 20-field spec with two CEL rules: the custom resource
// of issue 17's creates/s figure.
func benchSchema() string {
	var fields []string
	for i := 0; i < 16; i++ {
		fields = append(fields, fmt.Sprintf(`"field%d":{"type":"string","maxLength":64}`, i))
	}
	fields = append(fields,
		`"replicas":{"type":"integer","minimum":0,"maximum":100,"default":1}`,
		`"maxReplicas":{"type":"integer","minimum":0,"maximum":100}`,
		`"mode":{"type":"string","enum":["Fast","Safe"]}`,
		`"tags":{"type":"array","maxItems":8,"items":{"type":"string","maxLength":16}}`)
	return `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[
	  {"rule":"self.replicas <= self.maxReplicas","message":"replicas must not exceed maxReplicas"},
	  {"rule":"self.tags.all(t, t.startsWith('t'))","message":"tags start with t"}],
	  "properties":{` + strings.Join(fields, ",") + `}}}}`
}

func benchObject() []byte {
	spec := map[string]any{"replicas": 3, "maxReplicas": 5, "mode": "Fast", "tags": []string{"t1", "t2", "t3"}}
	for i := 0; i < 16; i++ {
		spec[fmt.Sprintf("field%d", i)] = fmt.Sprintf("value-%d", i)
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "bench.orkit.io/v1", "kind": "Bench",
		"metadata": map[string]any{"name": "b", "namespace": "default"}, "spec": spec})
	return b
}

// BenchmarkValidate measures Validate alone on a decoded object.
func BenchmarkValidate(b *testing.B) {
	sc := mustCompile(b, benchSchema())
	obj := mustObj(b, string(benchObject()))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if errs := sc.Validate(ctx, obj); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkCreatePipeline measures what a create does with a request body:
// decode, prune, default, validate.
func BenchmarkCreatePipeline(b *testing.B) {
	sc := mustCompile(b, benchSchema())
	body := benchObject()
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		v, err := DecodeJSON(body)
		if err != nil {
			b.Fatal(err)
		}
		obj := v.(map[string]any)
		if _, ferr := sc.Prune(obj); ferr != nil {
			b.Fatal(ferr)
		}
		sc.Default(obj)
		if errs := sc.Validate(ctx, obj); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateNoCEL is BenchmarkValidate without the CEL rules, to
// show their share.
func BenchmarkValidateNoCEL(b *testing.B) {
	s := benchSchema()
	i := strings.Index(s, `"x-kubernetes-validations"`)
	j := strings.Index(s, `"properties":{"field0"`)
	sc := mustCompile(b, s[:i]+s[j:])
	obj := mustObj(b, string(benchObject()))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		sc.Validate(ctx, obj)
	}
}

// BenchmarkCompile measures compiling the schema (once per CRD version).
func BenchmarkCompile(b *testing.B) {
	p := mustProps(b, benchSchema())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(p, nil); err != nil {
			b.Fatal(err)
		}
	}
}
