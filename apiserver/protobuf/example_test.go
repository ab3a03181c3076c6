package protobuf_test

import (
	"fmt"
	"os"

	"github.com/orkit/orkit/apiserver/protobuf"
)

// ExampleToJSON converts the body kubectl sends for
// "kubectl create namespace x".
func ExampleToJSON() {
	body, err := os.ReadFile("testdata/namespace.pb")
	if err != nil {
		fmt.Println(err)
		return
	}
	js, gvk, err := protobuf.ToJSON(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(gvk)
	fmt.Println(string(js))
	// Output:
	// v1, Kind=Namespace
	// {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x","creationTimestamp":null},"spec":{},"status":{}}
}

// ExampleKinds lists a few of the kinds ToJSON has a schema for.
func ExampleKinds() {
	for _, gvk := range protobuf.Kinds() {
		if gvk.Group == "apps" {
			fmt.Println(gvk)
		}
	}
	// Output:
	// apps/v1, Kind=ControllerRevision
	// apps/v1, Kind=DaemonSet
	// apps/v1, Kind=Deployment
	// apps/v1, Kind=ReplicaSet
	// apps/v1, Kind=StatefulSet
}
