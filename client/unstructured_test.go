package client

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

func TestUnstructuredRoundTrip(t *testing.T) {
	in := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"c"}]}}},"status":{"replicas":1}}`
	u := &Unstructured{}
	require.NoError(t, json.Unmarshal([]byte(in), u))
	assert.Equal(t, "Deployment", u.Kind)
	assert.Equal(t, "apps/v1", u.APIVersion)
	assert.Equal(t, "web", u.Name)
	assert.Equal(t, "web", u.Labels["app"])
	r, ok := u.Field("spec", "replicas")
	assert.True(t, ok)
	assert.InDelta(t, 3.0, r, 0)
	_, ok = u.Field("spec", "replicas", "deeper")
	assert.False(t, ok)
	_, ok = u.Field("nope")
	assert.False(t, ok)

	out, err := json.Marshal(u)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))

	require.NoError(t, u.SetField(float64(5), "spec", "replicas"))
	require.NoError(t, u.SetField("x", "spec", "new", "leaf"))
	assert.Error(t, u.SetField("x", "spec", "replicas", "under-a-number"))
	assert.ErrorIs(t, u.SetField("x"), ErrRequest)
	v, _ := u.Field("spec", "new", "leaf")
	assert.Equal(t, "x", v)
}

// TestUnstructuredTyped: an Unstructured carries everything a typed object
// of the same kind does.
func TestUnstructuredTyped(t *testing.T) {
	cm := configMap("a")
	b, err := json.Marshal(cm)
	require.NoError(t, err)
	u := &Unstructured{}
	require.NoError(t, json.Unmarshal(b, u))
	b2, err := json.Marshal(u)
	require.NoError(t, err)
	back := &core.ConfigMap{}
	require.NoError(t, json.Unmarshal(b2, back))
	assert.Equal(t, cm, back)
}

func TestUnstructuredRejects(t *testing.T) {
	for _, in := range []string{`null`, `[]`, `"x"`, `{"metadata":7}`, `{"kind":1}`, `{"apiVersion":{}}`, `{`} {
		assert.Error(t, json.Unmarshal([]byte(in), &Unstructured{}), in)
	}
}

// FuzzUnstructured: whatever decodes re-encodes, and decodes again to the
// same thing.
func FuzzUnstructured(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`))
	f.Add([]byte(`{"spec":{"a":[1,2,{"b":null}]},"metadata":{"labels":{"x":"y"}}}`))
	f.Add([]byte(`{"kind":"","apiVersion":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u := &Unstructured{}
		if json.Unmarshal(data, u) != nil {
			return
		}
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		u2 := &Unstructured{}
		if err := json.Unmarshal(b, u2); err != nil {
			t.Fatalf("re-decode %s: %v", b, err)
		}
		b2, err := json.Marshal(u2)
		if err != nil || string(b) != string(b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	})
}
