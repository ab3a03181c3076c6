package schema

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
)

func mustProps(t testing.TB, s string) *JSONSchemaProps {
	t.Helper()
	p := &JSONSchemaProps{}
	require.NoError(t, json.Unmarshal([]byte(s), p))
	return p
}

func mustCompile(t testing.TB, s string) *Schema {
	t.Helper()
	sc, err := Compile(mustProps(t, s), nil)
	require.NoError(t, err)
	return sc
}

func mustObj(t testing.TB, s string) map[string]any {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	require.NoError(t, err)
	return v.(map[string]any)
}

func strs(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func validate(t testing.TB, sc *Schema, obj string) []string {
	t.Helper()
	return strs(sc.Validate(context.Background(), mustObj(t, obj)))
}
