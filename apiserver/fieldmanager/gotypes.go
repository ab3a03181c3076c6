package fieldmanager

import (
	"encoding"
	"encoding/json"
	"path"
	"reflect"
	"strings"

	apischema "github.com/orkit/orkit/api/apiextensions/schema"
)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
)

// SchemaOf describes Go type t (a kind's struct, as the JSON encoding
// sees it) as an OpenAPI v3 schema with Kubernetes' list and map
// extensions, for NewTypeConverter: root refers to t's definition in
// defs, one definition per struct type. Lists and maps merge as the
// markers of the Kubernetes built-in types say; a type with its own JSON
// encoding is a string (meta.Time and the like), an int-or-string
// (meta.IntOrString, resource.Quantity) or untyped.
func SchemaOf(t reflect.Type) (root *apischema.JSONSchemaProps, defs map[string]*apischema.JSONSchemaProps) {
	g := &goSchemas{defs: map[string]*apischema.JSONSchemaProps{}}
	return g.of(t), g.defs
}

// goSchemas builds definitions for struct types by reflection.
type goSchemas struct {
	defs map[string]*apischema.JSONSchemaProps
}

// typeName is the definition name of a struct type.
func typeName(t reflect.Type) string {
	return strings.ReplaceAll(t.PkgPath(), "/", ".") + "." + t.Name()
}

// shortName is how the rule tables name a struct type ("core.PodSpec").
func shortName(t reflect.Type) string { return path.Base(t.PkgPath()) + "." + t.Name() }

// of returns the schema of any type: a $ref for named struct types.
func (g *goSchemas) of(t reflect.Type) *apischema.JSONSchemaProps {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p, ok := encodedAs(t); ok {
		return p
	}
	switch t.Kind() {
	case reflect.Struct:
		return g.structRef(t)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &apischema.JSONSchemaProps{Type: "string"}
		}
		return &apischema.JSONSchemaProps{Type: "array", Items: &apischema.JSONSchemaPropsOrArray{Schema: g.of(t.Elem())}}
	case reflect.Map:
		return &apischema.JSONSchemaProps{Type: "object", AdditionalProperties: &apischema.JSONSchemaPropsOrBool{Allows: true, Schema: g.of(t.Elem())}}
	case reflect.String:
		return &apischema.JSONSchemaProps{Type: "string"}
	case reflect.Bool:
		return &apischema.JSONSchemaProps{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &apischema.JSONSchemaProps{Type: "integer"}
	case reflect.Float32, reflect.Float64:
		return &apischema.JSONSchemaProps{Type: "number"}
	}
	return &apischema.JSONSchemaProps{} // interface{} and the like: untyped
}

// encodedAs describes types with their own JSON encoding.
func encodedAs(t reflect.Type) (*apischema.JSONSchemaProps, bool) {
	if t == rawMessageType {
		return &apischema.JSONSchemaProps{}, true
	}
	if !t.Implements(marshalerType) && !reflect.PointerTo(t).Implements(marshalerType) &&
		!t.Implements(textMarshalerType) && !reflect.PointerTo(t).Implements(textMarshalerType) {
		return nil, false
	}
	switch shortName(t) {
	case "meta.Time", "meta.MicroTime", "meta.Duration":
		return &apischema.JSONSchemaProps{Type: "string"}, true
	case "meta.IntOrString", "resource.Quantity":
		return &apischema.JSONSchemaProps{XIntOrString: true}, true
	}
	return &apischema.JSONSchemaProps{}, true
}

// structRef returns a $ref to t's definition, building it once.
func (g *goSchemas) structRef(t reflect.Type) *apischema.JSONSchemaProps {
	name := typeName(t)
	ref := "#/components/schemas/" + name
	if _, ok := g.defs[name]; ok {
		return &apischema.JSONSchemaProps{Ref: &ref}
	}
	def := &apischema.JSONSchemaProps{Type: "object", Properties: map[string]apischema.JSONSchemaProps{}}
	if atomicStructs[shortName(t)] {
		def.XMapType = ptr("atomic")
	}
	g.defs[name] = def
	g.addFields(t, t, def)
	return &apischema.JSONSchemaProps{Ref: &ref}
}

// addFields adds the JSON fields of struct t (inlining embedded structs)
// to def; owner is the struct the rule tables name.
func (g *goSchemas) addFields(owner, t reflect.Type, def *apischema.JSONSchemaProps) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) && ft.Kind() == reflect.Struct {
			g.addFields(ft, ft, def)
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := g.of(f.Type)
		g.applyRule(ruleKey(shortName(owner)+"."+name), ft, p)
		def.Properties[name] = *p
	}
}

// applyRule marks p, the schema of a field of Go type ft, with its merge
// rule.
func (g *goSchemas) applyRule(key ruleKey, ft reflect.Type, p *apischema.JSONSchemaProps) {
	if d, ok := keyDefaults[key]; ok {
		b, _ := json.Marshal(d)
		p.Default = &apischema.JSON{Raw: b}
	}
	r, ok := builtinFieldRules[key]
	if !ok && p.Type == "array" && strings.HasSuffix(string(key), ".conditions") && hasTypeField(ft.Elem()) {
		r, ok = listMap("type"), true
	}
	if !ok {
		return
	}
	if r.listType != "" && p.Type == "array" {
		p.XListType = ptr(r.listType)
		p.XListMapKeys = r.keys
	}
	if r.mapType != "" && p.Type == "object" {
		p.XMapType = ptr(r.mapType)
	}
}

// hasTypeField reports whether struct type t has a JSON field "type".
func hasTypeField(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == "type" {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
