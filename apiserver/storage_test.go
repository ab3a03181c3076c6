package apiserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestWireJSONMatchesEncoding(t *testing.T) {
	cases := []meta.Object{
		&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"x": "y"}}, Data: map[string]string{"metadata": `{"metadata":{`}},
		&core.Namespace{},
	}
	for _, obj := range cases {
		obj.GetTypeMeta().Kind, obj.GetTypeMeta().APIVersion = "K", "v1"
		stored, err := json.Marshal(obj)
		require.NoError(t, err)
		wire := WireJSON(stored, 42)
		require.True(t, json.Valid(wire), string(wire))
		obj.GetObjectMeta().ResourceVersion = "42"
		want, err := json.Marshal(obj)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(wire))
	}
	assert.Nil(t, WireJSON([]byte(`{"kind":"K"}`), 1), "no metadata: the caller re-encodes")
	for _, nested := range []string{`{"spec":{"metadata":{}},"metadata":{}}`, `{"a":["metadata":{]}`, `{"a":"x\"metadata\":{"}`, `{"\"metadata":{"x":1}}`} {
		assert.Nil(t, WireJSON([]byte(nested), 1), "%s: the first metadata is not the object's", nested)
	}
}
