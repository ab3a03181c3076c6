package fieldmanager_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/fieldmanager"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// newManager returns a FieldManager for Go type t in apiVersion, with a
// fixed clock.
func newManager(t *testing.T, typ reflect.Type, apiVersion string, reset ...string) *fieldmanager.FieldManager {
	t.Helper()
	root, defs := fieldmanager.SchemaOf(typ)
	tc, err := fieldmanager.NewTypeConverter(root, defs)
	require.NoError(t, err)
	return managerFor(t, tc, apiVersion, reset...)
}

func managerFor(t *testing.T, tc *fieldmanager.TypeConverter, apiVersion string, reset ...string) *fieldmanager.FieldManager {
	t.Helper()
	fm, err := fieldmanager.New(fieldmanager.Config{
		TypeConverter: tc, APIVersion: apiVersion, ResetFields: reset,
		Now: func() meta.Time { return meta.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) },
	})
	require.NoError(t, err)
	return fm
}

// obj parses YAML into an unstructured object with int64 numbers.
func obj(t *testing.T, y string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	require.NoError(t, err)
	v, err := schema.DecodeJSON(j)
	require.NoError(t, err)
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// withManaged returns o with entries as its metadata.managedFields.
func withManaged(t *testing.T, o map[string]any, entries []meta.ManagedFieldsEntry) map[string]any {
	t.Helper()
	b, err := yaml.Marshal(map[string]any{"x": entries})
	require.NoError(t, err)
	var wrap map[string]any
	require.NoError(t, yaml.Unmarshal(b, &wrap))
	md, _ := o["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		o["metadata"] = md
	}
	md["managedFields"] = wrap["x"]
	return o
}

// fieldsOf returns manager -> fieldsV1 JSON of entries.
func fieldsOf(entries []meta.ManagedFieldsEntry) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		k := e.Manager + "/" + e.Operation
		if e.Subresource != "" {
			k += "/" + e.Subresource
		}
		out[k] = string(e.FieldsV1)
	}
	return out
}
