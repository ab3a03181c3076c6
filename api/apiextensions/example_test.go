package apiextensions_test

import (
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/apiextensions"
)

// A CRD manifest decodes as kubectl sends it, is defaulted as the API
// server defaults it, and validated with Kubernetes' messages.
func ExampleValidateCustomResourceDefinition() {
	manifest := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
	 "metadata":{"name":"apps.example.com"},
	 "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"apps","kind":"App"},
	  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
	   "properties":{"spec":{"type":"object","properties":{"size":{}}}}}}}]}}`
	var crd apiextensions.CustomResourceDefinition
	if err := json.Unmarshal([]byte(manifest), &crd); err != nil {
		fmt.Println(err)
		return
	}
	apiextensions.SetDefaults(&crd)
	fmt.Println(crd.Spec.Names.Singular, crd.Spec.Names.ListKind, crd.Status.StoredVersions)
	for _, e := range apiextensions.ValidateCustomResourceDefinition(&crd) {
		fmt.Println(e)
	}
	// Output:
	// app AppList [v1]
	// spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields
}
