package fieldmanager

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apischema "github.com/orkit/orkit/api/apiextensions/schema"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Names of the two untyped SMD types, as Kubernetes names them: a value
// whose structure is deduced from its content (maps granular, lists
// atomic), and one that is atomic as a whole.
const (
	deducedType = "__untyped_deduced_"
	atomicType  = "__untyped_atomic_"
	rootType    = "__root__"
)

// TypeConverter turns unstructured objects of one kind into SMD typed
// values following a schema description. It is immutable once built and
// safe for concurrent use.
type TypeConverter struct {
	parser *typed.Parser
	root   typed.ParseableType
}

// NewTypeConverter compiles root, an OpenAPI v3 schema as a CRD carries
// it, into a TypeConverter. defs holds the schemas that $ref names, as
// "#/components/schemas/NAME" or "#/definitions/NAME" (nil when root has
// no $ref). Lists follow x-kubernetes-list-type ("atomic", the default;
// "set"; "map" with x-kubernetes-list-map-keys, whose fields may carry a
// default), objects x-kubernetes-map-type ("granular", the default, or
// "atomic"); x-kubernetes-preserve-unknown-fields and untyped nodes are
// deduced from their content, x-kubernetes-int-or-string is an atomic
// scalar. An unresolved $ref is ErrInvalidSchema.
func NewTypeConverter(root *apischema.JSONSchemaProps, defs map[string]*apischema.JSONSchemaProps) (*TypeConverter, error) {
	b := &smdBuilder{defs: defs}
	s := &schema.Schema{Types: untypedDefs()}
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s.Types = append(s.Types, schema.TypeDef{Name: n, Atom: b.atom(defs[n])})
	}
	s.Types = append(s.Types, schema.TypeDef{Name: rootType, Atom: b.atom(root)})
	if b.err != nil {
		return nil, b.err
	}
	p := &typed.Parser{}
	s.CopyInto(&p.Schema)
	return &TypeConverter{parser: p, root: p.Type(rootType)}, nil
}

// untypedDefs are the two untyped types every schema carries.
func untypedDefs() []schema.TypeDef {
	untyped := schema.Untyped
	ref := func(n string) schema.TypeRef { return schema.TypeRef{NamedType: &n} }
	return []schema.TypeDef{
		{Name: atomicType, Atom: schema.Atom{
			Scalar: &untyped,
			List:   &schema.List{ElementType: ref(atomicType), ElementRelationship: schema.Atomic},
			Map:    &schema.Map{ElementType: ref(atomicType), ElementRelationship: schema.Atomic},
		}},
		{Name: deducedType, Atom: schema.Atom{
			Scalar: &untyped,
			List:   &schema.List{ElementType: ref(atomicType), ElementRelationship: schema.Atomic},
			Map:    &schema.Map{ElementType: ref(deducedType), ElementRelationship: schema.Separable},
		}},
	}
}

// FromUnstructured types obj (a whole object in unstructured form).
// Live objects pass allowDuplicates, so that list-map items stored with a
// duplicate key (written before the schema said so) do not block writes.
// A value that does not fit the schema is ErrInvalidObject.
func (c *TypeConverter) FromUnstructured(obj map[string]any, allowDuplicates bool) (*typed.TypedValue, error) {
	var opts []typed.ValidationOptions
	if allowDuplicates {
		opts = append(opts, typed.AllowDuplicates)
	}
	tv, err := c.root.FromUnstructured(obj, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidObject, strings.TrimSpace(err.Error()))
	}
	return tv, nil
}

// ToUnstructured returns tv in unstructured form.
func ToUnstructured(tv *typed.TypedValue) map[string]any {
	m, _ := tv.AsValue().Unstructured().(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// smdBuilder converts JSONSchemaProps nodes into SMD atoms, recording the
// first error.
type smdBuilder struct {
	defs map[string]*apischema.JSONSchemaProps
	err  error
}

// refName resolves a $ref to the name of a definition.
func (b *smdBuilder) refName(ref string) string {
	for _, prefix := range []string{"#/components/schemas/", "#/definitions/"} {
		if n, ok := strings.CutPrefix(ref, prefix); ok {
			if _, ok := b.defs[n]; ok {
				return n
			}
		}
	}
	if b.err == nil {
		b.err = fmt.Errorf("%w: $ref %q does not name a definition", ErrInvalidSchema, ref)
	}
	return deducedType
}

// typeRef returns the SMD reference for a node: a named type for $ref
// and untyped nodes, else the node inlined.
func (b *smdBuilder) typeRef(p *apischema.JSONSchemaProps) schema.TypeRef {
	if p == nil {
		n := deducedType
		return schema.TypeRef{NamedType: &n}
	}
	if p.Ref != nil {
		n := b.refName(*p.Ref)
		return schema.TypeRef{NamedType: &n}
	}
	if n, ok := untypedName(p); ok {
		return schema.TypeRef{NamedType: &n}
	}
	return schema.TypeRef{Inlined: b.atom(p)}
}

// untypedAtom returns the atom of the untyped type named n.
func untypedAtom(n string) schema.Atom {
	for _, d := range untypedDefs() {
		if d.Name == n {
			return d.Atom
		}
	}
	return schema.Atom{}
}

// untypedName reports whether p is one of the untyped types.
func untypedName(p *apischema.JSONSchemaProps) (string, bool) {
	switch {
	case p.Ref != nil:
		return "", false
	case p.XIntOrString:
		return atomicType, true
	case p.Type == "" && len(p.Properties) == 0 && p.Items == nil && p.AdditionalProperties == nil:
		return deducedType, true
	case p.Type == "object" && len(p.Properties) == 0 && p.AdditionalProperties == nil:
		if p.XMapType != nil && *p.XMapType == "atomic" {
			return atomicType, true
		}
		return deducedType, true
	}
	return "", false
}

// atom converts one node.
func (b *smdBuilder) atom(p *apischema.JSONSchemaProps) schema.Atom {
	if p == nil {
		return schema.Atom{}
	}
	if n, ok := untypedName(p); ok {
		return untypedAtom(n)
	}
	if p.Ref != nil {
		// A definition that is only a $ref: follow it, refusing cycles.
		for hops := 0; p.Ref != nil; hops++ {
			n := b.refName(*p.Ref)
			if hops > 32 || b.defs[n] == nil {
				if b.err == nil {
					b.err = fmt.Errorf("%w: $ref %q does not resolve (cyclic?)", ErrInvalidSchema, *p.Ref)
				}
				return untypedAtom(deducedType)
			}
			p = b.defs[n]
		}
		return b.atom(p)
	}
	switch p.Type {
	case "object":
		return schema.Atom{Map: b.mapOf(p)}
	case "array":
		return schema.Atom{List: b.listOf(p)}
	case "string":
		s := schema.String
		return schema.Atom{Scalar: &s}
	case "integer", "number":
		s := schema.Numeric
		return schema.Atom{Scalar: &s}
	case "boolean":
		s := schema.Boolean
		return schema.Atom{Scalar: &s}
	}
	if b.err == nil {
		b.err = fmt.Errorf("%w: unknown type %q", ErrInvalidSchema, p.Type)
	}
	return schema.Atom{}
}

// mapOf converts an object node: its properties become fields,
// additionalProperties (or preserved unknown fields) the element type.
func (b *smdBuilder) mapOf(p *apischema.JSONSchemaProps) *schema.Map {
	m := &schema.Map{}
	if p.XMapType != nil && *p.XMapType == "atomic" {
		m.ElementRelationship = schema.Atomic
	}
	names := make([]string, 0, len(p.Properties))
	for n := range p.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		prop := p.Properties[n]
		f := schema.StructField{Name: n, Type: b.typeRef(&prop)}
		if prop.Default != nil {
			var v any
			if json.Unmarshal(prop.Default.Raw, &v) == nil {
				f.Default = v
			}
		}
		m.Fields = append(m.Fields, f)
	}
	switch {
	case p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil:
		m.ElementType = b.typeRef(p.AdditionalProperties.Schema)
	case (p.AdditionalProperties != nil && p.AdditionalProperties.Allows) || (p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields):
		n := deducedType
		m.ElementType = schema.TypeRef{NamedType: &n}
	}
	return m
}

// listOf converts an array node following x-kubernetes-list-type.
func (b *smdBuilder) listOf(p *apischema.JSONSchemaProps) *schema.List {
	l := &schema.List{ElementRelationship: schema.Atomic}
	var items *apischema.JSONSchemaProps
	if p.Items != nil {
		items = p.Items.Schema
	}
	l.ElementType = b.typeRef(items)
	if p.XListType == nil {
		return l
	}
	switch *p.XListType {
	case "set":
		l.ElementRelationship = schema.Associative
	case "map":
		l.ElementRelationship = schema.Associative
		l.Keys = append([]string(nil), p.XListMapKeys...)
		if len(l.Keys) == 0 && b.err == nil {
			b.err = fmt.Errorf("%w: a list of type map needs x-kubernetes-list-map-keys", ErrInvalidSchema)
		}
	}
	return l
}
