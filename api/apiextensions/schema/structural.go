package schema

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"

	"github.com/orkit/orkit/api/field"
)

type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// CheckStructural reports why props is not a structural schema, with
// Kubernetes' messages, at paths below base
// ("spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required
// value: must not be empty for specified object fields"). A structural
// schema specifies a type for every node (except below
// x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields),
// keeps allOf/anyOf/oneOf/not to value validations of fields it specifies
// outside of them, restricts metadata at the root to name and
// generateName, and uses none of $ref, id, definitions, dependencies,
// patternProperties, additionalItems or items lists. Errors are sorted.
func CheckStructural(props *JSONSchemaProps, base *field.Path) field.ErrorList {
	if props == nil {
		return nil
	}
	if err := unsupportedFields(props, 0); err != nil {
		return field.ErrorList{field.Invalid(base, "", err.Error())}
	}
	var errs field.ErrorList
	errs = append(errs, invariants(props, rootLevel, base)...)
	errs = append(errs, completeness(props, base)...)
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// unsupportedFields is Kubernetes' NewStructural: the fields a structural
// schema cannot hold at all.
func unsupportedFields(p *JSONSchemaProps, depth int) error {
	if p == nil {
		return nil
	}
	if depth > MaxDepth {
		return fmt.Errorf("OpenAPIV3Schema is nested deeper than %d levels", MaxDepth)
	}
	switch {
	case p.ID != "":
		return fmt.Errorf("OpenAPIV3Schema 'id' is not supported")
	case p.Schema != "":
		return fmt.Errorf("OpenAPIV3Schema 'schema' is not supported")
	case p.Ref != nil && *p.Ref != "":
		return fmt.Errorf("OpenAPIV3Schema '$ref' is not supported")
	case len(p.PatternProperties) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'patternProperties' is not supported")
	case len(p.Dependencies) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'dependencies' is not supported")
	case p.AdditionalItems != nil:
		return fmt.Errorf("OpenAPIV3Schema 'additionalItems' is not supported")
	case len(p.Definitions) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'definitions' is not supported")
	case p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields:
		return fmt.Errorf("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")
	case p.Items != nil && len(p.Items.JSONSchemas) > 0:
		return fmt.Errorf("OpenAPIV3Schema 'items' must be a schema, but is an array")
	}
	for _, c := range subSchemas(p) {
		if err := unsupportedFields(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// subSchemas are every schema directly inside p.
func subSchemas(p *JSONSchemaProps) []*JSONSchemaProps {
	var out []*JSONSchemaProps
	if p.Items != nil && p.Items.Schema != nil {
		out = append(out, p.Items.Schema)
	}
	for _, k := range sortedKeys(p.Properties) {
		c := p.Properties[k]
		out = append(out, &c)
	}
	if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
		out = append(out, p.AdditionalProperties.Schema)
	}
	for _, l := range [][]JSONSchemaProps{p.AllOf, p.AnyOf, p.OneOf} {
		for i := range l {
			out = append(out, &l[i])
		}
	}
	if p.Not != nil {
		out = append(out, p.Not)
	}
	return out
}

func preserves(p *JSONSchemaProps) bool {
	return p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields
}

// invariants checks the structural part of a schema (what properties,
// items and additionalProperties specify).
func invariants(p *JSONSchemaProps, lvl level, fp *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	if p.Type == "array" && (p.Items == nil || p.Items.Schema == nil) {
		errs = append(errs, field.Required(fp.Child("items"), "must be specified"))
	}
	if p.Items != nil {
		errs = append(errs, invariants(p.Items.Schema, itemLevel, fp.Child("items"))...)
	}
	for _, k := range sortedKeys(p.Properties) {
		c := p.Properties[k]
		errs = append(errs, invariants(&c, fieldLevel, fp.Child("properties").Key(k))...)
	}
	if p.AdditionalProperties != nil {
		if lvl == rootLevel {
			errs = append(errs, field.Forbidden(fp.Child("additionalProperties"), "must not be used at the root"))
		}
		errs = append(errs, invariants(p.AdditionalProperties.Schema, fieldLevel, fp.Child("additionalProperties"))...)
	}
	if p.XIntOrString && preserves(p) {
		errs = append(errs, field.Invalid(fp.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if p.XIntOrString && p.XEmbeddedResource {
		errs = append(errs, field.Invalid(fp.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	errs = append(errs, valueValidations(p, isIntOrStringAnyOf(p.AnyOf), isIntOrStringAllOf(p), fp)...)
	errs = append(errs, typeInvariants(p, lvl, fp)...)
	return append(errs, metaInvariants(p, lvl, fp)...)
}

func typeInvariants(p *JSONSchemaProps, lvl level, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case p.XEmbeddedResource && p.Type == "":
		errs = append(errs, field.Required(fp.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
	case p.XEmbeddedResource && p.Type != "object":
		errs = append(errs, field.Invalid(fp.Child("type"), p.Type, "must be object if x-kubernetes-embedded-resource is true"))
	case p.Type == "" && !p.XIntOrString && !preserves(p):
		detail := map[level]string{rootLevel: "must not be empty at the root",
			itemLevel: "must not be empty for specified array items", fieldLevel: "must not be empty for specified object fields"}[lvl]
		errs = append(errs, field.Required(fp.Child("type"), detail))
	}
	if p.XEmbeddedResource && p.AdditionalProperties != nil {
		errs = append(errs, field.Forbidden(fp.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && p.Type != "" && p.Type != "object" {
		errs = append(errs, field.Invalid(fp.Child("type"), p.Type, "must be object at the root"))
	}
	if p.XEmbeddedResource && !preserves(p) && len(p.Properties) == 0 {
		errs = append(errs, field.Required(fp.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return errs
}

// metaInvariants restricts apiVersion, kind and metadata at the root and
// in embedded resources.
func metaInvariants(p *JSONSchemaProps, lvl level, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := lvl == rootLevel || p.XEmbeddedResource
	for _, k := range []string{"kind", "apiVersion"} {
		if c, ok := p.Properties[k]; ok && check && c.Type != "string" {
			errs = append(errs, field.Invalid(fp.Child("properties").Key(k).Child("type"), c.Type, "must be string"))
		}
	}
	md, ok := p.Properties["metadata"]
	if !ok {
		return errs
	}
	mp := fp.Child("properties").Key("metadata")
	if check && md.Type != "object" {
		errs = append(errs, field.Invalid(mp.Child("type"), md.Type, "must be object"))
	}
	if lvl == rootLevel && !onlyNameAndGenerateName(md) {
		errs = append(errs, field.Forbidden(mp, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
	return errs
}

// onlyNameAndGenerateName reports whether a root metadata schema says
// nothing but its type, a default and the properties name and
// generateName (as Kubernetes allows).
func onlyNameAndGenerateName(md JSONSchemaProps) bool {
	_, n := md.Properties["name"]
	_, g := md.Properties["generateName"]
	if (n && g && len(md.Properties) == 2) || ((n || g) && len(md.Properties) == 1) {
		md.Properties = nil
	}
	md.Type, md.Default = "", nil
	return reflect.DeepEqual(md, JSONSchemaProps{})
}

// isIntOrStringAnyOf matches anyOf: [{type: integer}, {type: string}].
func isIntOrStringAnyOf(anyOf []JSONSchemaProps) bool {
	return len(anyOf) == 2 && reflect.DeepEqual(anyOf[0], JSONSchemaProps{Type: "integer"}) &&
		reflect.DeepEqual(anyOf[1], JSONSchemaProps{Type: "string"})
}

func isIntOrStringAllOf(p *JSONSchemaProps) bool {
	return len(p.AllOf) >= 1 && isIntOrStringAnyOf(p.AllOf[0].AnyOf)
}

// valueValidations checks the allOf/anyOf/oneOf/not of a node and its
// pattern.
func valueValidations(p *JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !skipAnyOf {
		for i := range p.AnyOf {
			errs = append(errs, nested(&p.AnyOf[i], false, fp.Child("anyOf").Index(i))...)
		}
	}
	for i := range p.AllOf {
		errs = append(errs, nested(&p.AllOf[i], skipFirstAllOfAnyOf && i == 0, fp.Child("allOf").Index(i))...)
	}
	for i := range p.OneOf {
		errs = append(errs, nested(&p.OneOf[i], false, fp.Child("oneOf").Index(i))...)
	}
	if p.Not != nil {
		errs = append(errs, nested(p.Not, false, fp.Child("not"))...)
	}
	if p.Pattern != "" {
		if _, err := regexp.Compile(p.Pattern); err != nil {
			errs = append(errs, field.Invalid(fp.Child("pattern"), p.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return errs
}

// nested checks a schema inside allOf/anyOf/oneOf/not: it may only hold
// value validations.
func nested(p *JSONSchemaProps, skipAnyOf bool, fp *field.Path) field.ErrorList {
	errs := valueValidations(p, skipAnyOf, false, fp)
	if p.Items != nil && p.Items.Schema != nil {
		errs = append(errs, nested(p.Items.Schema, false, fp.Child("items"))...)
	}
	for _, k := range sortedKeys(p.Properties) {
		c := p.Properties[k]
		errs = append(errs, nested(&c, false, fp.Child("properties").Key(k))...)
	}
	forbid := func(cond bool, name, detail string) {
		if cond {
			errs = append(errs, field.Forbidden(fp.Child(name), detail))
		}
	}
	forbid(p.Type != "", "type", "must be empty to be structural")
	forbid(p.AdditionalProperties != nil, "additionalProperties", "must be undefined to be structural")
	forbid(p.Default != nil, "default", "must be undefined to be structural")
	forbid(p.Title != "", "title", "must be empty to be structural")
	forbid(p.Description != "", "description", "must be empty to be structural")
	forbid(p.Nullable, "nullable", "must be false to be structural")
	forbid(preserves(p), "x-kubernetes-preserve-unknown-fields", "must be false to be structural")
	forbid(p.XEmbeddedResource, "x-kubernetes-embedded-resource", "must be false to be structural")
	forbid(p.XIntOrString, "x-kubernetes-int-or-string", "must be false to be structural")
	forbid(len(p.XListMapKeys) > 0, "x-kubernetes-list-map-keys", "must be empty to be structural")
	forbid(p.XListType != nil, "x-kubernetes-list-type", "must be undefined to be structural")
	forbid(p.XMapType != nil, "x-kubernetes-map-type", "must be undefined to be structural")
	forbid(len(p.XValidations) > 0, "x-kubernetes-validations", "must be empty to be structural")
	if _, ok := p.Properties["metadata"]; ok {
		errs = append(errs, field.Forbidden(fp.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
	return errs
}

// completeness checks that every field a value validation names is also
// specified outside of value validations.
func completeness(s *JSONSchemaProps, fp *field.Path) field.ErrorList {
	return junctorCompleteness(s, s, fp, fp)
}

func junctorCompleteness(v, s *JSONSchemaProps, sPath, vPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v.Not != nil {
		errs = append(errs, nestedCompleteness(v.Not, s, sPath, vPath.Child("not"))...)
	}
	for i := range v.AllOf {
		errs = append(errs, nestedCompleteness(&v.AllOf[i], s, sPath, vPath.Child("allOf").Index(i))...)
	}
	for i := range v.AnyOf {
		errs = append(errs, nestedCompleteness(&v.AnyOf[i], s, sPath, vPath.Child("anyOf").Index(i))...)
	}
	for i := range v.OneOf {
		errs = append(errs, nestedCompleteness(&v.OneOf[i], s, sPath, vPath.Child("oneOf").Index(i))...)
	}
	return errs
}

func nestedCompleteness(v, s *JSONSchemaProps, sPath, vPath *field.Path) field.ErrorList {
	if s == nil {
		return field.ErrorList{field.Required(sPath, fmt.Sprintf("because it is defined in %s", vPath))}
	}
	errs := junctorCompleteness(v, s, sPath, vPath)
	if v.Items != nil && v.Items.Schema != nil {
		var si *JSONSchemaProps
		if s.Items != nil {
			si = s.Items.Schema
		}
		errs = append(errs, nestedCompleteness(v.Items.Schema, si, sPath.Child("items"), vPath.Child("items"))...)
	}
	for _, k := range sortedKeys(v.Properties) {
		vf := v.Properties[k]
		sf, ok := s.Properties[k]
		if !ok {
			errs = append(errs, field.Required(sPath.Child("properties").Key(k), fmt.Sprintf("because it is defined in %s", vPath.Child("properties").Key(k))))
			continue
		}
		errs = append(errs, nestedCompleteness(&vf, &sf, sPath.Child("properties").Key(k), vPath.Child("properties").Key(k))...)
	}
	return errs
}
