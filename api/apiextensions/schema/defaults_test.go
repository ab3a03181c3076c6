package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

const defaultsSchema = `{"type":"object","properties":{
 "spec":{"type":"object","default":{},"properties":{
  "replicas":{"type":"integer","default":1},
  "mode":{"type":"string","default":"auto"},
  "nullable":{"type":"string","nullable":true,"default":"x"},
  "strict":{"type":"string"},
  "nested":{"type":"object","properties":{"deep":{"type":"string","default":"d"}}},
  "list":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer","default":80}}}},
  "map":{"type":"object","additionalProperties":{"type":"object","properties":{"w":{"type":"integer","default":5}}}},
  "obj":{"type":"object","default":{"a":[1,2]},"properties":{"a":{"type":"array","items":{"type":"integer"}}}}
 }}}}`

func TestDefault(t *testing.T) {
	sc := mustCompile(t, defaultsSchema)
	tests := []struct {
		name, in, want string
	}{
		{"spec created, then its defaults", `{}`,
			`{"spec":{"replicas":1,"mode":"auto","nullable":"x","obj":{"a":[1,2]}}}`},
		{"present values stay", `{"spec":{"replicas":3,"mode":"manual","nullable":"y","obj":{"a":[]}}}`,
			`{"spec":{"replicas":3,"mode":"manual","nullable":"y","obj":{"a":[]}}}`},
		{"null replaced by the default where null is not allowed", `{"spec":{"replicas":null,"nullable":null}}`,
			`{"spec":{"replicas":1,"mode":"auto","nullable":null,"obj":{"a":[1,2]}}}`},
		{"null without default dropped", `{"spec":{"strict":null}}`,
			`{"spec":{"replicas":1,"mode":"auto","nullable":"x","obj":{"a":[1,2]}}}`},
		{"nested defaults only under existing objects", `{"spec":{"nested":{},"list":[{},{"port":8080}],"map":{"a":{},"b":{"w":1}}}}`,
			`{"spec":{"replicas":1,"mode":"auto","nullable":"x","obj":{"a":[1,2]},"nested":{"deep":"d"},"list":[{"port":80},{"port":8080}],"map":{"a":{"w":5},"b":{"w":1}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObj(t, tt.in)
			sc.Default(obj)
			assert.Equal(t, mustObj(t, tt.want), obj)
		})
	}
}

func TestHasDefaults(t *testing.T) {
	tests := []struct {
		name, schema string
		want         bool
	}{
		{"none", `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}}}`, false},
		{"deep in a property", defaultsSchema, true},
		{"in list items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"p":{"type":"integer","default":1}}}}}}`, true},
		{"in additionalProperties", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string","default":"x"}}}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, mustCompile(t, tt.schema).HasDefaults())
		})
	}
	empty, err := Compile(nil, nil)
	assert.NoError(t, err)
	assert.False(t, empty.HasDefaults())
}

func TestDefaultIsACopy(t *testing.T) {
	sc := mustCompile(t, defaultsSchema)
	a, b := mustObj(t, `{}`), mustObj(t, `{}`)
	sc.Default(a)
	sc.Default(b)
	a["spec"].(map[string]any)["obj"].(map[string]any)["a"].([]any)[0] = int64(9)
	assert.Equal(t, int64(1), b["spec"].(map[string]any)["obj"].(map[string]any)["a"].([]any)[0])
}

func TestPrune(t *testing.T) {
	sc := mustCompile(t, `{"type":"object","properties":{
	 "spec":{"type":"object","properties":{
	  "keep":{"type":"string"},
	  "list":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}},
	  "map":{"type":"object","additionalProperties":{"type":"object","properties":{"a":{"type":"string"}}}},
	  "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"typed":{"type":"object","properties":{"a":{"type":"string"}}}}},
	  "template":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","properties":{"x":{"type":"string"}}}}}
	 }},
	 "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}`)
	obj := mustObj(t, `{"apiVersion":"x.io/v1","kind":"X","metadata":{"name":"a","labels":{"l":"v"}},"extra":1,
	 "spec":{"keep":"k","drop":1,"list":[{"a":"x","b":"y"}],"map":{"k":{"a":"x","c":"z"}},
	  "free":{"any":{"thing":1},"typed":{"a":"x","gone":2}},
	  "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","bogus":1},"spec":{"x":"1","y":"2"}}},
	 "status":{"ready":true,"phase":"Running"}}`)
	pruned, err := sc.Prune(obj)
	assert.Nil(t, err)
	assert.Equal(t, []string{"extra", "spec.drop", "spec.free.typed.gone", "spec.list[0].b", "spec.map.k.c", "spec.template.metadata.bogus", "spec.template.spec.y", "status.phase"}, pruned)
	assert.Equal(t, mustObj(t, `{"apiVersion":"x.io/v1","kind":"X","metadata":{"name":"a","labels":{"l":"v"}},
	 "spec":{"keep":"k","list":[{"a":"x"}],"map":{"k":{"a":"x"}},
	  "free":{"any":{"thing":1},"typed":{"a":"x"}},
	  "template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":"1"}}},
	 "status":{"ready":true}}`), obj)
}

func TestPruneEmbeddedErrors(t *testing.T) {
	sc := mustCompile(t, `{"type":"object","properties":{"t":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`)
	for _, tt := range []struct{ in, want string }{
		{`{"t":{"kind":1}}`, `t.kind: Invalid value: 1: must be a string`},
		{`{"t":{"metadata":{"name":5}}}`, `t.metadata: Invalid value: map[name:5]: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string`},
	} {
		_, err := sc.Prune(mustObj(t, tt.in))
		if assert.NotNil(t, err, tt.in) {
			assert.Equal(t, tt.want, err.Error())
		}
	}
}
