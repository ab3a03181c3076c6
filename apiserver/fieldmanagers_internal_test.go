package apiserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
	apischema "github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/meta"
)

// schemaStrategy is a DefaultStrategy whose objects are described by a
// schema, as a custom resource's are.
type schemaStrategy struct {
	*DefaultStrategy
	root *apischema.JSONSchemaProps
}

func (s *schemaStrategy) FieldSchema() (*apischema.JSONSchemaProps, map[string]*apischema.JSONSchemaProps) {
	return s.root, nil
}

var _ FieldSchemaProvider = (*schemaStrategy)(nil)

// TestFieldManagersFromProvidedSchema: a strategy that provides a schema
// drives the merge (here: data is a list map keyed by name, which a
// ConfigMap's Go type is not), and a new schema is compiled again.
func TestFieldManagersFromProvidedSchema(t *testing.T) {
	typ, ok := api.NewScheme().ByKind(meta.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	require.True(t, ok)
	var root apischema.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(`{"type":"object","properties":{
		"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
		"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
		  "items":{"type":"object","properties":{"name":{"type":"string"},"v":{"type":"string"}}}}}}`), &root))
	st := &schemaStrategy{DefaultStrategy: NewDefaultStrategy(typ), root: &root}
	res := &served{Resource: Resource{Type: typ, Strategy: st}}
	var fms fieldManagers
	fm, err := fms.forResource(res, "")
	require.NoError(t, err)
	again, err := fms.forResource(res, "")
	require.NoError(t, err)
	assert.Same(t, fm, again, "the same schema is compiled once")

	live := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}
	cfg := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"},
		"items": []any{map[string]any{"name": "a", "v": "1"}}}
	out, err := fm.Apply(live, cfg, "m", false, true)
	require.NoError(t, err)
	assert.Contains(t, string(out.ManagedFields[0].FieldsV1), `k:{\"name\":\"a\"}`)

	st.root = &apischema.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}
	changed, err := fms.forResource(res, "")
	require.NoError(t, err)
	assert.NotSame(t, fm, changed, "a changed schema is compiled again")
}

func ptrTo[T any](v T) *T { return &v }
