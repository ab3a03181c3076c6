package protobuf_test

import (
	"errors"
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

// ExampleToJSON_unknownKind shows the error for a kind without a schema.
func ExampleToJSON_unknownKind() {
	body, err := os.ReadFile("testdata/ingress.pb") // kubectl create ingress web --rule=web.example/=web:80
	if err != nil {
		fmt.Println(err)
		return
	}
	_, gvk, err := protobuf.ToJSON(body)
	fmt.Println(errors.Is(err, protobuf.ErrUnknownKind), gvk)
	// Output:
	// true networking.k8s.io/v1, Kind=Ingress
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
