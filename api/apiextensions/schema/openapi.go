package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Names of the Kubernetes meta schemas a custom resource's OpenAPI schema
// refers to; the document that publishes it must hold them too.
const (
	ObjectMetaSchemaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	ListMetaSchemaName   = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
)

const (
	apiVersionDoc = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	kindDoc       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	metadataDoc   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	listMetaDoc   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// OpenAPIKind names the kind a schema describes, for OpenAPI.
type OpenAPIKind struct {
	Group, Version, Kind, ListKind string
}

// SchemaName is the component name Kubernetes gives the schema of a custom
// kind: the group reversed, the version and the kind
// ("com.example.stable.v1.CronTab" for stable.example.com/v1 CronTab).
func (k OpenAPIKind) SchemaName() string {
	parts := strings.Split(k.Group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + k.Version + "." + k.Kind
}

// ListSchemaName is SchemaName of the list kind.
func (k OpenAPIKind) ListSchemaName() string {
	l := k
	l.Kind = k.ListKind
	return l.SchemaName()
}

// OpenAPI returns the OpenAPI v3 component schemas that describe a custom
// kind and its list, keyed by SchemaName and ListSchemaName, as
// kube-apiserver publishes them at /openapi/v3/apis/<group>/<version> for
// kubectl explain: the version's schema with apiVersion and kind
// documented, metadata referring to ObjectMeta, and
// x-kubernetes-group-version-kind. The schemas refer to
// ObjectMetaSchemaName and ListMetaSchemaName ("#/components/schemas/...")
// which the caller's document must hold. The maps are fresh and JSON
// ready; a nil props publishes an object that preserves unknown fields.
func OpenAPI(props *JSONSchemaProps, k OpenAPIKind) (map[string]map[string]any, error) {
	root := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	if props != nil {
		b, err := json.Marshal(props)
		if err != nil {
			return nil, fmt.Errorf("publish schema of %s: %w", k.Kind, err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		root = map[string]any{}
		if err := dec.Decode(&root); err != nil {
			return nil, fmt.Errorf("publish schema of %s: %w", k.Kind, err)
		}
	}
	props2, _ := root["properties"].(map[string]any)
	if props2 == nil {
		props2 = map[string]any{}
	}
	props2["apiVersion"] = map[string]any{"type": "string", "description": apiVersionDoc}
	props2["kind"] = map[string]any{"type": "string", "description": kindDoc}
	props2["metadata"] = refTo(ObjectMetaSchemaName, metadataDoc)
	root["properties"] = props2
	root["type"] = "object"
	root["x-kubernetes-group-version-kind"] = []any{gvk(k.Group, k.Version, k.Kind)}
	list := map[string]any{
		"type":        "object",
		"description": k.ListKind + " is a list of " + k.Kind,
		"required":    []any{"items"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "description": apiVersionDoc},
			"kind":       map[string]any{"type": "string", "description": kindDoc},
			"metadata":   refTo(ListMetaSchemaName, listMetaDoc),
			"items": map[string]any{
				"type":        "array",
				"description": "List of " + strings.ToLower(k.Kind) + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
				"items":       map[string]any{"$ref": "#/components/schemas/" + k.SchemaName()},
			},
		},
		"x-kubernetes-group-version-kind": []any{gvk(k.Group, k.Version, k.ListKind)},
	}
	return map[string]map[string]any{k.SchemaName(): root, k.ListSchemaName(): list}, nil
}

func refTo(name, doc string) map[string]any {
	return map[string]any{
		"allOf":       []any{map[string]any{"$ref": "#/components/schemas/" + name}},
		"default":     map[string]any{},
		"description": doc,
	}
}

func gvk(group, version, kind string) map[string]any {
	return map[string]any{"group": group, "version": version, "kind": kind}
}
