package apiextensions

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/jsonpath"
)

// defaultAgeColumn is the column a version without printer columns shows,
// as in Kubernetes.
var defaultAgeColumn = CustomResourceColumnDefinition{
	Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp",
	Description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
}

// PrinterColumns computes the Table columns of one CRD version (the
// columns after Name) as kube-apiserver does for kubectl get: each
// additionalPrinterColumn's JSONPath evaluated on the object, or an Age
// column when the version declares none. It is immutable and safe for
// concurrent use.
type PrinterColumns struct {
	// Columns are the column definitions, in order.
	Columns []CustomResourceColumnDefinition
	paths   []*jsonpath.Path
}

// NewPrinterColumns compiles the printer columns of v. A JSONPath that
// does not parse is an error naming the column.
func NewPrinterColumns(v *CustomResourceDefinitionVersion) (*PrinterColumns, error) {
	cols := v.AdditionalPrinterColumns
	if len(cols) == 0 {
		cols = []CustomResourceColumnDefinition{defaultAgeColumn}
	}
	p := &PrinterColumns{}
	for _, c := range cols {
		path, err := jsonpath.Parse(c.JSONPath)
		if err != nil {
			return nil, fmt.Errorf("unrecognized column definition %q: %w", c.JSONPath, err)
		}
		if c.Description == "" {
			c.Description = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		p.Columns = append(p.Columns, c)
		p.paths = append(p.paths, path)
	}
	return p, nil
}

// Cells returns one cell per column for obj (canonical JSON): int64 for
// integer columns, float64 for number, bool for boolean, the value printed
// for string, and age(creation) for date columns ("<invalid>" for a date
// that does not parse); nil where the path finds nothing or the value has
// another type.
func (p *PrinterColumns) Cells(obj map[string]any, age func(time.Time) string) []any {
	cells := make([]any, len(p.paths))
	for i, path := range p.paths {
		found := path.Find(obj)
		if len(found) == 0 {
			continue
		}
		cells[i] = cell(p.Columns[i].Type, found[0], age)
	}
	return cells
}

func cell(typ string, v any, age func(time.Time) string) any {
	if v == nil {
		return nil
	}
	switch typ {
	case "integer":
		switch x := v.(type) {
		case int64:
			return x
		case float64:
			return int64(x)
		}
	case "number":
		switch x := v.(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "string":
		return printed(v)
	case "date":
		if s, ok := v.(string); ok {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "<invalid>"
			}
			return age(t)
		}
	}
	return nil
}

// printed renders a value as kubectl's JSONPath printer does: strings as
// they are, lists and maps as JSON, the rest with fmt.
func printed(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}
