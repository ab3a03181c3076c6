package apiserver

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/internal/apidocs"
)

// TestOpenAPIDocsCurrent: openapi_docs.go holds the doc comments of the
// API types as they are now; run `go generate ./apiserver` when this fails.
func TestOpenAPIDocsCurrent(t *testing.T) {
	docs, err := apidocs.Extract("../api", "github.com/orkit/orkit/api")
	require.NoError(t, err)
	want, err := apidocs.Render("apiserver", "typeDocs", docs)
	require.NoError(t, err)
	got, err := os.ReadFile("openapi_docs.go")
	require.NoError(t, err)
	assert.True(t, string(want) == string(got), "apiserver/openapi_docs.go is stale: run go generate ./apiserver")
}

func TestDescribe(t *testing.T) {
	ref := map[string]any{"$ref": "#/components/schemas/x"}
	assert.Equal(t, map[string]any{"allOf": []any{ref}, "description": "d"}, describe(ref, "d"))
	assert.Equal(t, map[string]any{"type": "string", "description": "d"}, describe(map[string]any{"type": "string"}, "d"))
	assert.Equal(t, map[string]any{"type": "string"}, describe(map[string]any{"type": "string"}, ""))
}
