package fields_test

import (
	"fmt"

	"github.com/orkit/orkit/api/fields"
)

func ExampleParse() {
	sel, err := fields.Parse("spec.nodeName==node-1,status.phase!=Failed")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel.String())
	pod := fields.Set{"metadata.name": "web-0", "spec.nodeName": "node-1", "status.phase": "Running"}
	fmt.Println(sel.Matches(pod))
	node, ok := sel.RequiresExactMatch("spec.nodeName")
	fmt.Println(node, ok)
	_, err = fields.Parse("metadata.name")
	fmt.Println(err)
	// Output:
	// spec.nodeName=node-1,status.phase!=Failed
	// true
	// node-1 true
	// invalid field selector "metadata.name": can't understand 'metadata.name': expected field=value, field==value or field!=value
}

func ExampleEscapeValue() {
	sel := fields.OneTermEqualSelector("metadata.annotations.note", "a=b,c")
	fmt.Println(sel.String(), fields.EscapeValue(`x\y`))
	// Output: metadata.annotations.note=a\=b\,c x\\y
}
