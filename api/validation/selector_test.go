package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func TestValidateLabelSelector(t *testing.T) {
	p := field.NewPath("spec", "selector")
	req := func(key string, op meta.LabelSelectorOperator, values ...string) meta.LabelSelectorRequirement {
		return meta.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name string
		sel  *meta.LabelSelector
		want []string
	}{
		{name: "nil"},
		{name: "empty", sel: &meta.LabelSelector{}},
		{name: "valid", sel: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []meta.LabelSelectorRequirement{req("tier", meta.LabelSelectorOpIn, "a", "b"),
				req("x", meta.LabelSelectorOpNotIn, "c"), req("y", meta.LabelSelectorOpExists), req("z", meta.LabelSelectorOpDoesNotExist)}}},
		{name: "bad matchLabels", sel: &meta.LabelSelector{MatchLabels: map[string]string{"app": "a b"}},
			want: []string{`spec.selector.matchLabels: Invalid value: "a b": ` + msgValue}},
		{name: "in without values", sel: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{req("a", meta.LabelSelectorOpIn)}},
			want: []string{"spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
		{name: "exists with values", sel: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{req("a", meta.LabelSelectorOpExists, "x")}},
			want: []string{"spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"}},
		{name: "bad operator", sel: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{req("a", "Gt", "1")}},
			want: []string{`spec.selector.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator`}},
		{name: "bad key and value", sel: &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{
			req("a", meta.LabelSelectorOpExists), req("-k", meta.LabelSelectorOpIn, "ok", "-v")}},
			want: []string{`spec.selector.matchExpressions[1].key: Invalid value: "-k": ` + msgName,
				`spec.selector.matchExpressions[1].values[1]: Invalid value: "-v": ` + msgValue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errorStrings(ValidateLabelSelector(tt.sel, p)))
		})
	}
}
