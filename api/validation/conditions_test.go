package validation

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func TestValidateConditions(t *testing.T) {
	now := meta.NewTime(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	ok := meta.Condition{Type: "example.com/Ready", Status: meta.ConditionTrue, Reason: "AllGood", Message: "fine", LastTransitionTime: now}
	with := func(change func(c *meta.Condition)) []meta.Condition {
		c := ok
		change(&c)
		return []meta.Condition{c}
	}
	tests := []struct {
		name string
		in   []meta.Condition
		want []string
	}{
		{"none", nil, nil},
		{"valid", []meta.Condition{ok, {Type: "Other", Status: meta.ConditionUnknown, Reason: "A_b,C:d", LastTransitionTime: now}}, nil},
		{"empty", []meta.Condition{{}}, []string{
			"c[0].type: Required value: must be set",
			`c[0].status: Unsupported value: "": supported values: "False", "True", "Unknown"`,
			"c[0].lastTransitionTime: Required value: must be set",
			"c[0].reason: Required value: must be set",
		}},
		{"duplicate type", []meta.Condition{ok, ok}, []string{`c[1].type: Duplicate value: "example.com/Ready"`}},
		{"type not a qualified name", with(func(c *meta.Condition) { c.Type = "not ok" }), []string{
			`c[0].type: Invalid value: "not ok": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
		{"negative observedGeneration", with(func(c *meta.Condition) { c.ObservedGeneration = -1 }),
			[]string{"c[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero"}},
		{"reason not CamelCase", with(func(c *meta.Condition) { c.Reason = "all good" }), []string{
			`c[0].reason: Invalid value: "all good": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$')`,
		}},
		{"oversized reason", with(func(c *meta.Condition) { c.Reason = strings.Repeat("A", MaxConditionReasonLen+1) }),
			[]string{"c[0].reason: Too long: may not be more than 1024 bytes"}},
		{"oversized message", with(func(c *meta.Condition) { c.Message = strings.Repeat("m", MaxConditionMessageLen+1) }),
			[]string{"c[0].message: Too long: may not be more than 32768 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errorStrings(ValidateConditions(tt.in, field.NewPath("c"))))
		})
	}
}
