package jsonpath_test

import (
	"fmt"

	"github.com/orkit/orkit/api/jsonpath"
)

func ExamplePath_Find() {
	obj := map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True"},
		map[string]any{"type": "Synced", "status": "False"},
	}}}
	p, _ := jsonpath.Parse(`.status.conditions[?(@.type=="Ready")].status`)
	fmt.Println(p.Find(obj))
	// Output: [True]
}
