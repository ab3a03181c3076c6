package apiserver

import (
	"reflect"
	"sync"

	"github.com/orkit/orkit/api/apiextensions/schema"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/fieldmanager"
)

// objectMetaSchema is meta.ObjectMeta as server-side apply types it (a
// $ref into defs, one definition per struct type). Built once, never
// modified: every custom resource's field schema shares it.
var objectMetaSchema = sync.OnceValues(func() (*schema.JSONSchemaProps, map[string]*schema.JSONSchemaProps) {
	return fieldmanager.SchemaOf(reflect.TypeOf(meta.ObjectMeta{}))
})

// fieldSchema is the schema server-side apply types a custom resource
// version by, as kube-apiserver extends a CRD's schema for it: a copy of
// props that also declares apiVersion and kind (strings, unless the CRD
// declares them) and metadata as ObjectMeta (whatever the CRD says of
// it), at the root and in every embedded resource
// (x-kubernetes-embedded-resource). A field ObjectMeta does not have is
// "field not declared in schema" in a configuration; stored objects
// always fit, since decoding drops such fields (the root's metadata is
// meta.ObjectMeta, an embedded one is pruned to it). nil stays nil. defs
// are what the ObjectMeta references resolve to; the caller must not
// modify them.
func fieldSchema(props *schema.JSONSchemaProps) (*schema.JSONSchemaProps, map[string]*schema.JSONSchemaProps) {
	if props == nil {
		return nil, nil
	}
	objectMeta, defs := objectMetaSchema()
	out := withEmbeddedFields(*props, *objectMeta)
	addObjectFields(&out, *objectMeta)
	return &out, defs
}

// addObjectFields declares apiVersion and kind (when p does not) and sets
// metadata to objectMeta. p.Properties must be p's own map.
func addObjectFields(p *schema.JSONSchemaProps, objectMeta schema.JSONSchemaProps) {
	if p.Properties == nil {
		p.Properties = map[string]schema.JSONSchemaProps{}
	}
	for _, name := range []string{"apiVersion", "kind"} {
		if _, ok := p.Properties[name]; !ok {
			p.Properties[name] = schema.JSONSchemaProps{Type: "string"}
		}
	}
	p.Properties["metadata"] = objectMeta
}

// withEmbeddedFields returns p with addObjectFields applied to every
// embedded resource below it (properties, items, additionalProperties).
// The nodes on the way are copied; p is not modified.
func withEmbeddedFields(p schema.JSONSchemaProps, objectMeta schema.JSONSchemaProps) schema.JSONSchemaProps {
	if p.Properties != nil {
		props := make(map[string]schema.JSONSchemaProps, len(p.Properties)+3)
		for name, sub := range p.Properties {
			props[name] = withEmbeddedFields(sub, objectMeta)
		}
		p.Properties = props
	}
	if p.Items != nil && p.Items.Schema != nil {
		items := *p.Items
		s := withEmbeddedFields(*items.Schema, objectMeta)
		items.Schema = &s
		p.Items = &items
	}
	if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
		ap := *p.AdditionalProperties
		s := withEmbeddedFields(*ap.Schema, objectMeta)
		ap.Schema = &s
		p.AdditionalProperties = &ap
	}
	if p.XEmbeddedResource {
		addObjectFields(&p, objectMeta)
	}
	return p
}
