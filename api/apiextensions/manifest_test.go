package apiextensions

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/orkit/orkit/api/apiextensions/schema"
)

// TestControllerGenManifest takes a CRD written as controller-gen writes
// it, converts the YAML to JSON as kubectl does, decodes it strictly,
// validates it, compiles its schema and runs a custom resource through it.
func TestControllerGenManifest(t *testing.T) {
	y, err := os.ReadFile("testdata/database.yaml")
	require.NoError(t, err)
	j, err := yaml.YAMLToJSON(y)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	crd := &CustomResourceDefinition{}
	require.NoError(t, dec.Decode(crd))
	SetDefaults(crd)
	require.Empty(t, ValidateCustomResourceDefinition(crd))

	sc, err := schema.Compile(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, nil)
	require.NoError(t, err)
	crYAML := `
apiVersion: db.example.io/v1
kind: Database
metadata: {name: orders, namespace: default}
spec:
  engine: mysql
  version: "8.0"
  replicas: 7
  storage: 10Gi
  users: [{name: app, roles: [read, write]}, {name: app}]
  template: {apiVersion: v1, kind: Pod, metadata: {name: t}}
  color: blue
`
	cj, err := yaml.YAMLToJSON([]byte(crYAML))
	require.NoError(t, err)
	v, err := schema.DecodeJSON(cj)
	require.NoError(t, err)
	obj := v.(map[string]any)
	pruned, ferr := sc.Prune(obj)
	require.Nil(t, ferr)
	assert.Equal(t, []string{"spec.color"}, pruned)
	sc.Default(obj)
	assert.Nil(t, obj["spec"].(map[string]any)["backup"], "backup is absent, so its defaults are not applied")

	var got []string
	for _, e := range sc.Validate(context.Background(), obj) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		`spec.users[1]: Duplicate value: map[string]interface {}{"name":"app"}`,
		`spec: Invalid value: "object": mysql supports at most 5 replicas`,
	}, got)

	pc, err := NewPrinterColumns(&crd.Spec.Versions[0])
	require.NoError(t, err)
	assert.Equal(t, []any{"mysql", int64(7), nil, nil}, pc.Cells(obj, nil))
}
