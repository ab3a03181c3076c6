package schema

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRatcheting: on update, values that did not change are not validated
// again, so an object stored under an older, looser schema can still be
// updated elsewhere; changed values are.
func TestRatcheting(t *testing.T) {
	sc := mustCompile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
	  "name":{"type":"string","maxLength":3,"x-kubernetes-validations":[{"rule":"self.startsWith('a')"}]},
	  "other":{"type":"string"},
	  "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","maxLength":2}},
	  "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],
	    "properties":{"name":{"type":"string"},"port":{"type":"integer","maximum":100}}}}}}}}`)
	ctx := context.Background()
	old := mustObj(t, `{"spec":{"name":"toolong","tags":["long","ok"],"ports":[{"name":"a","port":1000},{"name":"b","port":1}]}}`)
	tests := []struct {
		name, obj string
		want      []string
	}{
		{"unchanged invalid values pass", `{"spec":{"name":"toolong","other":"new","tags":["ok","long"],"ports":[{"name":"b","port":2},{"name":"a","port":1000}]}}`, nil},
		{"changed values are checked", `{"spec":{"name":"zzzzz","tags":["long","also long"],"ports":[{"name":"a","port":1001}]}}`, []string{
			`spec.name: Too long: may not be more than 3 bytes`,
			`spec.ports[0].port: Invalid value: 1001: spec.ports[0].port in body should be less than or equal to 100`,
			`spec.tags[1]: Too long: may not be more than 2 bytes`,
			`<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, strs(sc.ValidateUpdate(ctx, mustObj(t, tt.obj), old)))
		})
	}
	// the same objects on create are checked in full.
	assert.NotEmpty(t, sc.Validate(ctx, mustObj(t, tests[0].obj)))
}
