package labels_test

import (
	"fmt"

	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

func ExampleParse() {
	sel, err := labels.Parse("app=web,tier in (fe,be),!canary")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel.String())
	fmt.Println(sel.Matches(labels.Set{"app": "web", "tier": "fe"}))
	fmt.Println(sel.Matches(labels.Set{"app": "web", "tier": "fe", "canary": "true"}))
	_, err = labels.Parse("app in (web")
	fmt.Println(err)
	// Output:
	// app=web,!canary,tier in (be,fe)
	// true
	// false
	// invalid label selector "app in (web": found end of string, expected: ',', ')' or identifier
}

func ExampleSelectorFromLabelSelector() {
	sel, _ := labels.SelectorFromLabelSelector(&meta.LabelSelector{
		MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []meta.LabelSelectorRequirement{
			{Key: "env", Operator: meta.LabelSelectorOpNotIn, Values: []string{"prod"}},
		},
	})
	fmt.Println(sel.String(), sel.Matches(labels.Set{"app": "web", "env": "dev"}))
	nothing, _ := labels.SelectorFromLabelSelector(nil)
	fmt.Println(nothing.Matches(labels.Set{"app": "web"}))
	// Output:
	// app=web,env notin (prod) true
	// false
}
