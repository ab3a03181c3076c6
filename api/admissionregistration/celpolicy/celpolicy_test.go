package celpolicy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompileAndEval(t *testing.T) {
	obj, err := FromJSON([]byte(`{"spec":{"replicas":6,"ratio":0.5,"tags":["a","b"]}}`))
	require.NoError(t, err)
	act := Activation{VarObject: obj, VarRequest: map[string]any{"operation": "CREATE"}}
	tests := []struct {
		expr string
		want bool
	}{
		{"object.spec.replicas > 5", true},
		{"object.spec.ratio < 1.0", true},
		{"'b' in object.spec.tags && request.operation == 'CREATE'", true},
		{"params == null && oldObject == null", true},
		{"size(variables) == 0", true},
	}
	for _, tt := range tests {
		p, err := Compile(tt.expr, Bool)
		require.NoError(t, err, tt.expr)
		got, err := p.EvalBool(act)
		require.NoError(t, err, tt.expr)
		assert.Equal(t, tt.want, got, tt.expr)
	}
	_, err = Compile("object.spec.replicas >", Bool)
	assert.True(t, errors.Is(err, ErrCompile))
	assert.Contains(t, err.Error(), "compilation failed: ERROR: <input>:1:")
	_, err = Compile("'x'", Bool)
	assert.EqualError(t, err, "compilation failed: must evaluate to bool")
	p, err := Compile("object.spec.missing == 1", Bool)
	require.NoError(t, err)
	_, err = p.EvalBool(act)
	assert.EqualError(t, err, "no such key: missing")
}

func ExampleCompile() {
	p, _ := Compile("object.spec.replicas <= 5", Bool)
	obj, _ := FromJSON([]byte(`{"spec":{"replicas":6}}`))
	ok, err := p.EvalBool(Activation{VarObject: obj})
	fmt.Println(ok, err)
	// Output: false <nil>
}
