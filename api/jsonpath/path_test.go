package jsonpath

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const doc = `{"metadata":{"name":"a","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app.kubernetes.io/name":"web"}},
 "spec":{"replicas":3,"ratio":0.5,"ports":[{"name":"http","port":80},{"name":"https","port":443},{"name":"admin","port":9000}]},
 "status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}],"nested":{"deep":{"name":"x"}}}}`

func decode(t *testing.T) any {
	var v any
	require.NoError(t, json.Unmarshal([]byte(doc), &v))
	return canonical(v)
}

// canonical turns float64 integers into int64 as the API server's decoder
// does.
func canonical(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = canonical(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonical(e)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}

func TestFind(t *testing.T) {
	data := decode(t)
	tests := []struct {
		expr string
		want []any
	}{
		{".spec.replicas", []any{int64(3)}},
		{"{.metadata.name}", []any{"a"}},
		{".metadata.labels['app.kubernetes.io/name']", []any{"web"}},
		{`.metadata.labels["app.kubernetes.io/name"]`, []any{"web"}},
		{".spec.missing", nil},
		{".spec.ports[0].port", []any{int64(80)}},
		{".spec.ports[-1].name", []any{"admin"}},
		{".spec.ports[*].name", []any{"http", "https", "admin"}},
		{".spec.ports[0,2].name", []any{"http", "admin"}},
		{".spec.ports[1:].port", []any{int64(443), int64(9000)}},
		{".spec.ports[:2].port", []any{int64(80), int64(443)}},
		{".spec.ports[::2].port", []any{int64(80), int64(9000)}},
		{`.status.conditions[?(@.type=="Ready")].status`, []any{"True"}},
		{`.status.conditions[?(@.type!='Ready')].type`, []any{"Synced"}},
		{`.spec.ports[?(@.port > 100)].name`, []any{"https", "admin"}},
		{`.spec.ports[?(@.port<=80)].name`, []any{"http"}},
		{`.status.conditions[?(@.reason)].type`, nil},
		{"..name", []any{"a", "http", "https", "admin", "x"}},
		{".status.nested.*.name", []any{"x"}},
		{".spec.ratio", []any{0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			p, err := Parse(tt.expr)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Find(data))
			assert.Equal(t, tt.expr, p.String())
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, expr := range []string{".spec[", ".spec[abc]", ".spec[?(x)]", "..", "spec", ".a[1:2:3:4]", `.a['x]`, `.a[?(@.b == zz)]`} {
		_, err := Parse(expr)
		assert.ErrorIs(t, err, ErrSyntax, expr)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{".a.b", "{.a[0]}", `.a[?(@.b=="c")].d`, "..x", ".a[*]", ".a[1:2]", ".a['b','c']"} {
		f.Add(s)
	}
	data := map[string]any{"a": []any{map[string]any{"b": "c", "d": int64(1)}, nil, "s"}, "x": map[string]any{"x": true}}
	f.Fuzz(func(t *testing.T, expr string) {
		if p, err := Parse(expr); err == nil {
			p.Find(data)
		}
	})
}
