package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// MaxDepth is how deeply schema nodes may nest (properties, items,
// additionalProperties and the value validations allOf/anyOf/oneOf/not
// each count one level). Real CRDs stay far below; deeper schemas are
// refused with ErrTooDeep rather than walked.
const MaxDepth = 512

// jsonType is a set of JSON types a node accepts.
type jsonType uint8

const (
	tObject jsonType = 1 << iota
	tArray
	tString
	tInteger
	tNumber
	tBoolean
	tAny jsonType = 0xff
)

// node is one compiled schema node: what Validate, Default, Prune and the
// CEL rules need, with the pattern compiled, enum and default decoded and
// property names sorted. Nodes are immutable after Compile.
type node struct {
	props *JSONSchemaProps

	typ             string // the declared type ("" for none)
	types           jsonType
	nullable        bool
	format          string // a format kube validates, else ""
	intOrString     bool
	preserveUnknown bool
	embedded        bool

	properties map[string]*node
	propNames  []string // sorted
	additional *node    // additionalProperties schema
	addlSet    bool     // additionalProperties present (schema or bool)
	addlAllows bool     // additionalProperties true or a schema
	items      *node

	required   []string
	enum       []any
	enumText   []string // enum values as kube prints them
	maximum    *float64
	minimum    *float64
	exclMax    bool
	exclMin    bool
	maxLength  *int64
	minLength  *int64
	pattern    *regexp.Regexp
	maxItems   *int64
	minItems   *int64
	unique     bool
	multipleOf *float64
	maxProps   *int64
	minProps   *int64

	allOf []*node
	anyOf []*node
	oneOf []*node
	not   *node

	listType    string
	listMapKeys []string
	mapType     string

	hasDefault bool
	def        any

	// cel holds the compiled x-kubernetes-validations of the node, nil
	// when it has none.
	cel *celRules
	// hasCEL says whether the node or any node below it (through
	// properties, items or additionalProperties) has CEL rules.
	hasCEL bool
	// hasListSemantics says whether the node or a node below has list
	// types set or map, or embedded resources (checked after the value
	// validation).
	hasExtra bool
}

// compileNode builds the node tree of p. depth counts nesting for
// MaxDepth; where is the schema path used in errors.
func compileNode(p *JSONSchemaProps, depth int, where string) (*node, error) {
	if p == nil {
		return nil, nil
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: %s is nested deeper than %d levels", ErrTooDeep, where, MaxDepth)
	}
	n := &node{props: p, typ: p.Type, nullable: p.Nullable, intOrString: p.XIntOrString,
		preserveUnknown: p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields,
		embedded:        p.XEmbeddedResource, required: p.Required,
		maximum: p.Maximum, minimum: p.Minimum, exclMax: p.ExclusiveMaximum, exclMin: p.ExclusiveMinimum,
		maxLength: p.MaxLength, minLength: p.MinLength, maxItems: p.MaxItems, minItems: p.MinItems,
		unique: p.UniqueItems, multipleOf: p.MultipleOf, maxProps: p.MaxProperties, minProps: p.MinProperties,
		listMapKeys: p.XListMapKeys}
	n.types = typesOf(p)
	n.format = supportedFormat(p.Type, p.Format)
	if p.XListType != nil {
		n.listType = *p.XListType
	}
	if p.XMapType != nil {
		n.mapType = *p.XMapType
	}
	if err := n.compileValues(p, where); err != nil {
		return nil, err
	}
	if err := n.compileChildren(p, depth, where); err != nil {
		return nil, err
	}
	n.hasExtra = n.listType == "set" || n.listType == "map" || n.embedded
	for _, c := range n.children() {
		n.hasExtra = n.hasExtra || c.hasExtra
	}
	return n, nil
}

func typesOf(p *JSONSchemaProps) jsonType {
	if p.XIntOrString {
		return tInteger | tString
	}
	switch p.Type {
	case "object":
		return tObject
	case "array":
		return tArray
	case "string":
		return tString
	case "integer":
		return tInteger
	case "number":
		return tNumber | tInteger
	case "boolean":
		return tBoolean
	}
	return tAny
}

// compileValues decodes the pattern, enum and default of p.
func (n *node) compileValues(p *JSONSchemaProps, where string) error {
	if p.Pattern != "" {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return fmt.Errorf("%w: %s.pattern: %w", ErrInvalidSchema, where, err)
		}
		n.pattern = re
	}
	for i, e := range p.Enum {
		v, err := e.Value()
		if err != nil {
			return fmt.Errorf("%w: %s.enum[%d]: %w", ErrInvalidSchema, where, i, err)
		}
		n.enum = append(n.enum, v)
		if s, ok := v.(string); ok {
			n.enumText = append(n.enumText, s)
		} else {
			n.enumText = append(n.enumText, jsonKey(v))
		}
	}
	if p.Default != nil {
		v, err := p.Default.Value()
		if err != nil {
			return fmt.Errorf("%w: %s.default: %w", ErrInvalidSchema, where, err)
		}
		n.hasDefault, n.def = true, v
	}
	return nil
}

func (n *node) compileChildren(p *JSONSchemaProps, depth int, where string) error {
	var err error
	if len(p.Properties) > 0 {
		n.properties = make(map[string]*node, len(p.Properties))
		for k := range p.Properties {
			n.propNames = append(n.propNames, k)
		}
		sort.Strings(n.propNames)
		for _, k := range n.propNames {
			c := p.Properties[k]
			if n.properties[k], err = compileNode(&c, depth+1, where+".properties["+k+"]"); err != nil {
				return err
			}
		}
	}
	if ap := p.AdditionalProperties; ap != nil {
		n.addlSet, n.addlAllows = true, ap.Allows || ap.Schema != nil
		if n.additional, err = compileNode(ap.Schema, depth+1, where+".additionalProperties"); err != nil {
			return err
		}
	}
	if p.Items != nil {
		if n.items, err = compileNode(p.Items.Schema, depth+1, where+".items"); err != nil {
			return err
		}
	}
	if n.allOf, err = compileList(p.AllOf, depth, where+".allOf"); err != nil {
		return err
	}
	if n.anyOf, err = compileList(p.AnyOf, depth, where+".anyOf"); err != nil {
		return err
	}
	if n.oneOf, err = compileList(p.OneOf, depth, where+".oneOf"); err != nil {
		return err
	}
	n.not, err = compileNode(p.Not, depth+1, where+".not")
	return err
}

func compileList(ps []JSONSchemaProps, depth int, where string) ([]*node, error) {
	var out []*node
	for i := range ps {
		c, err := compileNode(&ps[i], depth+1, fmt.Sprintf("%s[%d]", where, i))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// children are the nodes that describe parts of the value (not the value
// validations).
func (n *node) children() []*node {
	var out []*node
	for _, k := range n.propNames {
		out = append(out, n.properties[k])
	}
	if n.additional != nil {
		out = append(out, n.additional)
	}
	if n.items != nil {
		out = append(out, n.items)
	}
	return out
}

// field returns the node for key k of an object: a property, or the
// additionalProperties schema; nil when neither applies.
func (n *node) field(k string) *node {
	if n == nil {
		return nil
	}
	if c, ok := n.properties[k]; ok {
		return c
	}
	return n.additional
}

// typeString is the type kube-openapi names in a type error: the declared
// type, or "integer,string" for int-or-string.
func (n *node) typeString() string {
	if n.intOrString {
		return "integer,string"
	}
	return n.typ
}

// celTypeName is the schema type name CEL errors report as the bad value
// ("object", "string", ...).
func (n *node) valueTypeName() string {
	if n.typ == "" && n.intOrString {
		return ""
	}
	return n.typ
}

// supportedFormat returns format when Kubernetes validates it for a value
// of type typ, else "" (Kubernetes ignores formats it does not know).
func supportedFormat(typ, format string) string {
	if format == "" {
		return ""
	}
	switch typ {
	case "", "string":
		if _, ok := formatCheckers[strings.ReplaceAll(format, "-", "")]; ok {
			return strings.ReplaceAll(format, "-", "")
		}
	case "integer":
		if format == "int32" || format == "int64" {
			return format
		}
	case "number":
		if format == "float" || format == "double" {
			return format
		}
	}
	return ""
}
