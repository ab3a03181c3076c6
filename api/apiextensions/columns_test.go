package apiextensions

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apiextensions/schema"
)

func TestPrinterColumns(t *testing.T) {
	crd, _ := decodeFile(t, "widget.json")
	crd.Spec.Versions[0].AdditionalPrinterColumns = append(crd.Spec.Versions[0].AdditionalPrinterColumns,
		CustomResourceColumnDefinition{Name: "Min", Type: "integer", JSONPath: ".spec.minReplicas"},
		CustomResourceColumnDefinition{Name: "Ratio", Type: "number", JSONPath: ".spec.ratio"},
		CustomResourceColumnDefinition{Name: "Tags", Type: "string", JSONPath: ".spec.tags", Priority: 1},
		CustomResourceColumnDefinition{Name: "Created", Type: "date", JSONPath: ".metadata.creationTimestamp"},
		CustomResourceColumnDefinition{Name: "Missing", Type: "string", JSONPath: ".spec.nothing"})
	pc, err := NewPrinterColumns(&crd.Spec.Versions[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"Mode", "Ready", "Min", "Ratio", "Tags", "Created", "Missing"}, columnNames(pc))
	assert.Equal(t, "Custom resource definition column (in JSONPath format): .spec.mode", pc.Columns[0].Description)

	v, err := schema.DecodeJSON([]byte(`{"metadata":{"name":"w","creationTimestamp":"2026-01-01T00:00:00Z"},
	  "spec":{"mode":"Fast","minReplicas":2,"ratio":1,"tags":["a","b"]},
	  "status":{"conditions":[{"type":"Synced","status":"False"},{"type":"Ready","status":"True"}]}}`))
	require.NoError(t, err)
	age := func(ts time.Time) string { return "since " + ts.Format(time.DateOnly) }
	assert.Equal(t, []any{"Fast", "True", int64(2), float64(1), `["a","b"]`, "since 2026-01-01", nil}, pc.Cells(v.(map[string]any), age))
}

func TestPrinterColumnsDefaultAge(t *testing.T) {
	pc, err := NewPrinterColumns(&CustomResourceDefinitionVersion{Name: "v1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Age"}, columnNames(pc))
	assert.Equal(t, []any{"<invalid>"}, pc.Cells(map[string]any{"metadata": map[string]any{"creationTimestamp": "yesterday"}}, nil))

	_, err = NewPrinterColumns(&CustomResourceDefinitionVersion{AdditionalPrinterColumns: []CustomResourceColumnDefinition{{Name: "X", Type: "string", JSONPath: ".a["}}})
	assert.ErrorContains(t, err, `unrecognized column definition ".a["`)
}

func columnNames(pc *PrinterColumns) []string {
	var out []string
	for _, c := range pc.Columns {
		out = append(out, c.Name)
	}
	return out
}
