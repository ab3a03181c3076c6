package schema_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/apiextensions/schema"
)

// A version's schema is compiled once and then prunes, defaults and
// validates every object of the version.
func ExampleCompile() {
	var props schema.JSONSchemaProps
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"type":"object",
	  "x-kubernetes-validations":[{"rule":"self.replicas <= self.maxReplicas","message":"replicas must not exceed maxReplicas"}],
	  "properties":{"replicas":{"type":"integer","default":1},"maxReplicas":{"type":"integer","default":3},"image":{"type":"string"}}}}}`), &props)
	sc, err := schema.Compile(&props, nil)
	if err != nil {
		fmt.Println(err)
		return
	}

	v, _ := schema.DecodeJSON([]byte(`{"apiVersion":"example.com/v1","kind":"App","metadata":{"name":"a"},"spec":{"replicas":5,"colour":"red"}}`))
	obj := v.(map[string]any)
	unknown, _ := sc.Prune(obj)
	sc.Default(obj)
	fmt.Println("pruned:", unknown)
	fmt.Println("defaulted maxReplicas:", obj["spec"].(map[string]any)["maxReplicas"])
	for _, e := range sc.Validate(context.Background(), obj) {
		fmt.Println(e)
	}
	// Output:
	// pruned: [spec.colour]
	// defaulted maxReplicas: 3
	// spec: Invalid value: "object": replicas must not exceed maxReplicas
}

// Errors name the field and are worded as Kubernetes words them.
func ExampleSchema_Validate() {
	var props schema.JSONSchemaProps
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"type":"object","required":["mode"],"properties":{
	  "replicas":{"type":"integer"},"mode":{"type":"string","enum":["a","b"]}}}}}`), &props)
	sc, _ := schema.Compile(&props, nil)
	v, _ := schema.DecodeJSON([]byte(`{"spec":{"replicas":"three"}}`))
	for _, e := range sc.Validate(context.Background(), v.(map[string]any)) {
		fmt.Println(e)
	}
	v, _ = schema.DecodeJSON([]byte(`{"spec":{"mode":"x"}}`))
	for _, e := range sc.Validate(context.Background(), v.(map[string]any)) {
		fmt.Println(e)
	}
	// Output:
	// spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
	// spec.mode: Required value
	// spec.mode: Unsupported value: "x": supported values: "a", "b"
}

// Check is what the API server runs on a CRD's schema before accepting it.
func ExampleCheck() {
	var props schema.JSONSchemaProps
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}},"ref":{"$ref":"#/definitions/x"}}}`), &props)
	for _, e := range schema.Check(&props, nil, schema.CheckOptions{}) {
		fmt.Println(e)
	}
	// Output:
	// properties[ref].$ref: Forbidden: $ref is not supported
}

// OpenAPI gives the schemas the API server publishes for kubectl explain.
func ExampleOpenAPI() {
	var props schema.JSONSchemaProps
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"type":"object","description":"What the app should be."}}}`), &props)
	k := schema.OpenAPIKind{Group: "example.com", Version: "v1", Kind: "App", ListKind: "AppList"}
	docs, _ := schema.OpenAPI(&props, k)
	fmt.Println(k.SchemaName(), docs[k.SchemaName()]["properties"].(map[string]any)["spec"].(map[string]any)["description"])
	fmt.Println(k.ListSchemaName(), docs[k.ListSchemaName()]["required"])
	// Output:
	// com.example.v1.App What the app should be.
	// com.example.v1.AppList [items]
}
