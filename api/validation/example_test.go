package validation_test

import (
	"fmt"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

func ExampleIsDNS1123Label() {
	fmt.Println(validation.IsDNS1123Label("kube-system"))
	fmt.Println(validation.IsDNS1123Label("a.b"))
	// Output:
	// []
	// [must not contain dots]
}

func ExampleValidateObjectMeta() {
	m := &meta.ObjectMeta{Name: "Web", Labels: map[string]string{"app": "web"}}
	errs := validation.ValidateObjectMeta(m, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
	// metadata.namespace: Required value
}
