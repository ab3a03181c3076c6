package patch_test

import (
	"errors"
	"fmt"

	"github.com/orkit/orkit/patch"
)

const deployment = `{"metadata":{"name":"web","labels":{"app":"web"}},
 "spec":{"replicas":1,"template":{"spec":{"containers":[
   {"name":"web","image":"web:1","env":[{"name":"A","value":"1"}]},
   {"name":"log","image":"log:1"}]}}}}`

// kubectl label sends a JSON merge patch.
func ExampleApply_mergePatch() {
	out, err := patch.Apply(patch.MergePatch, []byte(`{"metadata":{"name":"web","labels":{"app":"web"}}}`),
		[]byte(`{"metadata":{"labels":{"tier":"front","app":null}}}`), "Deployment")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output: {"metadata":{"labels":{"tier":"front"},"name":"web"}}
}

// kubectl set image sends a strategic merge patch: the container list merges
// by name, so the other container and the env list stay as they were.
func ExampleApply_strategicMerge() {
	out, err := patch.Apply(patch.StrategicMerge, []byte(deployment),
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"web:2"}]}}}}`), "Deployment")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output: {"metadata":{"labels":{"app":"web"},"name":"web"},"spec":{"replicas":1,"template":{"spec":{"containers":[{"env":[{"name":"A","value":"1"}],"image":"web:2","name":"web"},{"image":"log:1","name":"log"}]}}}}
}

// A JSON patch applies all of its operations or none; errors name the
// failing operation.
func ExampleApply_jsonPatch() {
	doc := []byte(`{"spec":{"replicas":1}}`)
	out, err := patch.Apply(patch.JSONPatch, doc,
		[]byte(`[{"op":"test","path":"/spec/replicas","value":1},{"op":"replace","path":"/spec/replicas","value":3}]`), "")
	fmt.Println(string(out), err)

	_, err = patch.Apply(patch.JSONPatch, doc,
		[]byte(`[{"op":"replace","path":"/spec/replicas","value":3},{"op":"remove","path":"/spec/paused"}]`), "")
	var opErr *patch.OperationError
	fmt.Println(errors.Is(err, patch.ErrInvalidPatch), errors.As(err, &opErr) && opErr.Index == 1)
	fmt.Println(err)
	// Output:
	// {"spec":{"replicas":3}} <nil>
	// true true
	// invalid patch: operation 1 (remove "/spec/paused"): member "paused" not found
}
