package fieldmanager_test

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/apiserver/fieldmanager"
)

// Two managers apply to a ConfigMap: the second conflicts on the value the
// first owns, and takes it over with force.
func ExampleFieldManager_Apply() {
	root, defs := fieldmanager.SchemaOf(reflect.TypeFor[core.ConfigMap]())
	tc, err := fieldmanager.NewTypeConverter(root, defs)
	if err != nil {
		panic(err)
	}
	fm, err := fieldmanager.New(fieldmanager.Config{TypeConverter: tc, APIVersion: "v1"})
	if err != nil {
		panic(err)
	}
	cm := func(v string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "settings"}, "data": map[string]any{"mode": v}}
	}
	empty := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "settings"}}
	first, err := fm.Apply(empty, cm("fast"), "alice", false, true)
	if err != nil {
		panic(err)
	}
	fmt.Println(first.ManagedFields[0].Manager, string(first.ManagedFields[0].FieldsV1))

	live := first.Object
	live["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{
		"manager": "alice", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:data": map[string]any{"f:mode": map[string]any{}}},
	}}
	_, err = fm.Apply(live, cm("safe"), "bob", false, false)
	fmt.Println(errors.Is(err, fieldmanager.ErrConflict), err)

	forced, err := fm.Apply(live, cm("safe"), "bob", true, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(forced.Object["data"], len(forced.ManagedFields), forced.ManagedFields[0].Manager)
	// Output:
	// alice {"f:data":{"f:mode":{}}}
	// true Apply failed with 1 conflict: conflict with "alice": .data.mode
	// map[mode:safe] 1 bob
}
