package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenAPI(t *testing.T) {
	k := OpenAPIKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab", ListKind: "CronTabList"}
	assert.Equal(t, "com.example.stable.v1.CronTab", k.SchemaName())
	assert.Equal(t, "com.example.stable.v1.CronTabList", k.ListSchemaName())

	p := mustProps(t, `{"type":"object","description":"a cron tab","properties":{"spec":{"type":"object","properties":{
	  "cronSpec":{"type":"string","description":"the schedule"},"replicas":{"type":"integer","default":12345678901234567890,"maximum":9}}}}}`)
	docs, err := OpenAPI(p, k)
	require.NoError(t, err)
	b, err := json.Marshal(docs)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))

	kind := got["com.example.stable.v1.CronTab"].(map[string]any)
	assert.Equal(t, "a cron tab", kind["description"])
	assert.Equal(t, []any{map[string]any{"group": "stable.example.com", "version": "v1", "kind": "CronTab"}}, kind["x-kubernetes-group-version-kind"])
	props := kind["properties"].(map[string]any)
	assert.Equal(t, "the schedule", props["spec"].(map[string]any)["properties"].(map[string]any)["cronSpec"].(map[string]any)["description"])
	assert.Equal(t, []any{map[string]any{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}, props["metadata"].(map[string]any)["allOf"])
	assert.Contains(t, props, "apiVersion")
	assert.Contains(t, props, "kind")
	assert.Contains(t, string(b), `"default":12345678901234567890`, "default values are kept exactly")

	list := got["com.example.stable.v1.CronTabList"].(map[string]any)
	assert.Equal(t, map[string]any{"$ref": "#/components/schemas/com.example.stable.v1.CronTab"}, list["properties"].(map[string]any)["items"].(map[string]any)["items"])

	none, err := OpenAPI(nil, k)
	require.NoError(t, err)
	assert.Equal(t, true, none["com.example.stable.v1.CronTab"]["x-kubernetes-preserve-unknown-fields"])
}
