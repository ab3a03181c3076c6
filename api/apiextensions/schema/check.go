package schema

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/orkit/orkit/api/field"
)

// CheckOptions tunes Check. The zero value checks a schema as Kubernetes
// checks the schema of a new v1 CRD version.
type CheckOptions struct {
	// StatusSubresource says the version serves /status: the root may
	// then only hold fields that keep their meaning when status is
	// validated on its own.
	StatusSubresource bool
	// PerCallLimit is the CEL per-call cost limit (zero:
	// DefaultPerCallLimit).
	PerCallLimit uint64
}

var (
	openAPIV3Types    = []string{"array", "boolean", "integer", "number", "object", "string"}
	validationReasons = []string{string(FieldValueDuplicate), string(FieldValueForbidden), string(FieldValueInvalid), string(FieldValueRequired)}
	newlines          = regexp.MustCompile(`[\n\r]+`)
	allowedAtRoot     = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}
)

// Check validates the openAPIV3Schema of one CRD version as
// kube-apiserver does when a CRD is created: supported keywords only, no
// $ref (a CRD schema cannot refer anywhere, so cyclic references are
// impossible), structural, list and map types consistent, defaults valid
// and pruned, CEL rules compiling within their cost limits. base is the
// path of the schema ("spec.versions[0].schema.openAPIV3Schema"); errors
// are worded as Kubernetes words them. An empty list means Compile
// succeeds.
func Check(props *JSONSchemaProps, base *field.Path, opts CheckOptions) field.ErrorList {
	if props == nil {
		return nil
	}
	var errs field.ErrorList
	if opts.StatusSubresource {
		errs = append(errs, rootForStatus(props, base)...)
	}
	if props.Nullable {
		errs = append(errs, field.Forbidden(base.Child("nullable"), "nullable cannot be true at the root"))
	}
	var initErr error
	structuralOK := false
	if err := unsupportedFields(props, 0); err != nil {
		initErr = err
	} else if serrs := CheckStructural(props, base); len(serrs) > 0 {
		errs = append(errs, serrs...)
	} else {
		structuralOK = true
	}
	sc := schemaChecker{}
	sc.check(props, base, checkCtx{allowDefaults: true}, true)
	errs = append(errs, sc.errs...)
	if len(errs) == 0 && initErr != nil {
		return field.ErrorList{field.Invalid(base, "", initErr.Error())}
	}
	if len(errs) > 0 || !structuralOK {
		return errs
	}
	return compiled(props, base, opts)
}

// compiled compiles a schema that passed the static checks, reports CEL
// errors, and validates its defaults.
func compiled(props *JSONSchemaProps, base *field.Path, opts CheckOptions) field.ErrorList {
	root, err := compileNode(props, 0, base.String())
	if err != nil {
		return field.ErrorList{field.Invalid(base, "", err.Error())}
	}
	limit := opts.PerCallLimit
	if limit == 0 {
		limit = DefaultPerCallLimit
	}
	if errs := compileCEL(root, base, limit); len(errs) > 0 {
		return errs
	}
	return checkDefaults(root, base, true)
}

// rootForStatus allows only a few keywords at the root of a schema whose
// version has a status subresource.
func rootForStatus(p *JSONSchemaProps, base *field.Path) field.ErrorList {
	v := reflect.ValueOf(p).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			continue
		}
		name := v.Type().Field(i).Name
		if name == "Type" {
			if p.Type != "object" {
				return field.ErrorList{field.Invalid(base.Child("type"), p.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
			continue
		}
		allowed := false
		for _, a := range allowedAtRoot {
			allowed = allowed || a == name
		}
		if !allowed {
			return field.ErrorList{field.Invalid(base, "", fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", allowedAtRoot))}
		}
	}
	return nil
}

// checkCtx is what the position of a schema node implies for its checks.
type checkCtx struct {
	allowDefaults bool
	noDefaultWhy  string
	insideMeta    bool
}

type schemaChecker struct {
	errs field.ErrorList
}

func (c *schemaChecker) add(e *field.Error) { c.errs = append(c.errs, e) }

// check is Kubernetes' ValidateCustomResourceDefinitionOpenAPISchema
// without the CEL part.
func (c *schemaChecker) check(p *JSONSchemaProps, fp *field.Path, ctx checkCtx, root bool) {
	if p == nil {
		return
	}
	c.keywords(p, fp, ctx)
	if p.UniqueItems {
		c.add(field.Forbidden(fp.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if ap := p.AdditionalProperties; ap != nil {
		if len(p.Properties) != 0 && (!ap.Allows || ap.Schema != nil) {
			c.add(field.Forbidden(fp.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := ctx
		if ctx.insideMeta {
			sub.allowDefaults, sub.noDefaultWhy = false, "inside additionalProperties applying to object metadata"
		}
		c.check(ap.Schema, fp.Child("additionalProperties"), sub, false)
	}
	for _, k := range sortedKeys(p.Properties) {
		sub := ctx
		if (root || p.XEmbeddedResource) && metaFields[k] {
			sub.insideMeta = true
			if root {
				sub.allowDefaults, sub.noDefaultWhy = false, "in top-level "+k
			}
		}
		prop := p.Properties[k]
		c.check(&prop, fp.Child("properties").Key(k), sub, false)
	}
	c.check(p.Not, fp.Child("not"), ctx, false)
	for _, j := range []struct {
		name string
		list []JSONSchemaProps
	}{{"allOf", p.AllOf}, {"oneOf", p.OneOf}, {"anyOf", p.AnyOf}} {
		for i := range j.list {
			c.check(&j.list[i], fp.Child(j.name).Index(i), ctx, false)
		}
	}
	for _, k := range sortedKeys(p.Definitions) {
		d := p.Definitions[k]
		c.check(&d, fp.Child("definitions").Key(k), ctx, false)
	}
	if p.Items != nil {
		c.check(p.Items.Schema, fp.Child("items"), ctx, false)
		for i := range p.Items.JSONSchemas {
			c.check(&p.Items.JSONSchemas[i], fp.Child("items").Index(i), ctx, false)
		}
	}
	for _, k := range sortedKeys(p.Dependencies) {
		c.check(p.Dependencies[k].Schema, fp.Child("dependencies").Key(k), ctx, false)
	}
	c.extensions(p, fp)
	c.listMapKeys(p, fp)
	c.rules(p, fp)
}

// keywords is Kubernetes' specStandardValidatorV3: keywords a CRD schema
// may not use.
func (c *schemaChecker) keywords(p *JSONSchemaProps, fp *field.Path, ctx checkCtx) {
	if p.Type != "" && !contains(openAPIV3Types, p.Type) {
		c.add(field.NotSupported(fp.Child("type"), p.Type, openAPIV3Types))
	}
	if p.Default != nil && !ctx.allowDefaults {
		detail := "must not be set"
		if ctx.noDefaultWhy != "" {
			detail += " " + ctx.noDefaultWhy
		}
		c.add(field.Forbidden(fp.Child("default"), detail))
	}
	forbid := func(cond bool, name, detail string) {
		if cond {
			c.add(field.Forbidden(fp.Child(name), detail))
		}
	}
	forbid(p.ID != "", "id", "id is not supported")
	forbid(p.AdditionalItems != nil, "additionalItems", "additionalItems is not supported")
	forbid(len(p.PatternProperties) != 0, "patternProperties", "patternProperties is not supported")
	forbid(len(p.Definitions) != 0, "definitions", "definitions is not supported")
	forbid(p.Dependencies != nil, "dependencies", "dependencies is not supported")
	forbid(p.Ref != nil, "$ref", "$ref is not supported")
	forbid(p.Type == "null", "type", "type cannot be set to null, use nullable as an alternative")
	forbid(p.Items != nil && len(p.Items.JSONSchemas) != 0, "items", "items must be a schema object and not an array")
	forbid(ctx.insideMeta && p.XEmbeddedResource, "x-kubernetes-embedded-resource", "must not be used inside of resource meta")
}

func (c *schemaChecker) extensions(p *JSONSchemaProps, fp *field.Path) {
	if p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields {
		c.add(field.Invalid(fp.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	if p.XMapType != nil && p.Type != "object" {
		c.add(typeMust(fp, p.Type, "must be object if x-kubernetes-map-type is specified"))
	}
	if p.XMapType != nil && *p.XMapType != "atomic" && *p.XMapType != "granular" {
		c.add(field.NotSupported(fp.Child("x-kubernetes-map-type"), *p.XMapType, []string{"atomic", "granular"}))
	}
	if p.XListType != nil && p.Type != "array" {
		c.add(typeMust(fp, p.Type, "must be array if x-kubernetes-list-type is specified"))
	} else if p.XListType != nil && *p.XListType == "set" && p.Items != nil && p.Items.Schema != nil {
		is := p.Items.Schema
		switch {
		case is.Type == "array" && is.XListType != nil && *is.XListType != "atomic":
			c.add(field.Invalid(fp.Child("items").Child("x-kubernetes-list-type"), *is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
		case is.Type == "object" && (is.XMapType == nil || *is.XMapType != "atomic"):
			c.add(field.Invalid(fp.Child("items").Child("x-kubernetes-map-type"), listTypeValue(is.XListType), "must be atomic as item of a list with x-kubernetes-list-type=set"))
		}
	}
	if p.XListType != nil && *p.XListType != "atomic" && *p.XListType != "set" && *p.XListType != "map" {
		c.add(field.NotSupported(fp.Child("x-kubernetes-list-type"), *p.XListType, []string{"atomic", "set", "map"}))
	}
}

func listTypeValue(s *string) any {
	if s == nil {
		return nullValue{}
	}
	return *s
}

func typeMust(fp *field.Path, typ, detail string) *field.Error {
	if typ == "" {
		return field.Required(fp.Child("type"), detail)
	}
	return field.Invalid(fp.Child("type"), typ, detail)
}

// listMapKeys checks x-kubernetes-list-map-keys and the items of set and
// map lists.
func (c *schemaChecker) listMapKeys(p *JSONSchemaProps, fp *field.Path) {
	if len(p.XListMapKeys) > 0 {
		if p.XListType == nil {
			c.add(field.Required(fp.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *p.XListType != "map" {
			c.add(field.Invalid(fp.Child("x-kubernetes-list-type"), *p.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if p.XListType == nil || (*p.XListType != "map" && *p.XListType != "set") {
		return
	}
	var items *JSONSchemaProps
	if p.Items != nil {
		items = p.Items.Schema
	}
	if *p.XListType == "map" {
		c.mapList(p, items, fp)
	}
	if items != nil && items.Nullable {
		c.add(field.Forbidden(fp.Child("items").Child("nullable"), "cannot be nullable when x-kubernetes-list-type is "+*p.XListType))
	}
	if *p.XListType == "map" && items != nil {
		required := map[string]bool{}
		for _, r := range items.Required {
			required[r] = true
		}
		for _, k := range p.XListMapKeys {
			prop, ok := items.Properties[k]
			if !ok {
				continue
			}
			if !required[k] && prop.Default == nil {
				c.add(field.Required(fp.Child("items").Child("properties").Key(k).Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
			}
			if prop.Nullable {
				c.add(field.Forbidden(fp.Child("items").Child("properties").Key(k).Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
			}
		}
	}
}

func (c *schemaChecker) mapList(p, items *JSONSchemaProps, fp *field.Path) {
	if len(p.XListMapKeys) == 0 {
		c.add(field.Required(fp.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
	}
	if p.Items == nil {
		c.add(field.Required(fp.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
		return
	}
	if items == nil {
		c.add(field.Invalid(fp.Child("items"), "", "must only have a single schema if x-kubernetes-list-type is map"))
		return
	}
	if items.Type != "object" {
		c.add(field.Invalid(fp.Child("items").Child("type"), items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		return
	}
	seen := map[string]bool{}
	for _, k := range p.XListMapKeys {
		if s, ok := items.Properties[k]; ok {
			if s.Type == "array" || s.Type == "object" {
				c.add(field.Invalid(fp.Child("items").Child("properties").Key(k).Child("type"), items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
			}
		} else {
			c.add(field.Invalid(fp.Child("x-kubernetes-list-map-keys"), p.XListMapKeys, "entries must all be names of item properties"))
		}
		if seen[k] {
			c.add(field.Invalid(fp.Child("x-kubernetes-list-map-keys"), p.XListMapKeys, "must not contain duplicate entries"))
		}
		seen[k] = true
	}
}

// rules checks the parts of x-kubernetes-validations that need no CEL.
func (c *schemaChecker) rules(p *JSONSchemaProps, fp *field.Path) {
	for i, r := range p.XValidations {
		rp := fp.Child("x-kubernetes-validations").Index(i)
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			c.add(field.Required(rp.Child("rule"), "rule is not specified"))
		case r.Message != "" && msg == "":
			c.add(field.Invalid(rp.Child("message"), r.Message, "message must be non-empty if specified"))
		case newlines.MatchString(msg):
			c.add(field.Invalid(rp.Child("message"), r.Message, "message must not contain line breaks"))
		case newlines.MatchString(rule) && msg == "":
			c.add(field.Required(rp.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
			c.add(field.Required(rp.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !contains(validationReasons, string(*r.Reason)) {
			c.add(field.NotSupported(rp.Child("reason"), string(*r.Reason), validationReasons))
		}
		if r.FieldPath != "" && strings.TrimSpace(r.FieldPath) == "" {
			c.add(field.Invalid(rp.Child("fieldPath"), r.FieldPath, "fieldPath must be non-empty if specified"))
		}
		if newlines.MatchString(r.FieldPath) {
			c.add(field.Invalid(rp.Child("fieldPath"), r.FieldPath, "fieldPath must not contain line breaks"))
		}
		if r.FieldPath != "" && !fieldPathValid(p, r.FieldPath) {
			c.add(field.Invalid(rp.Child("fieldPath"), r.FieldPath, "fieldPath must be a valid path"))
		}
	}
}

func fieldPathValid(p *JSONSchemaProps, fp string) bool {
	if unsupportedFields(p, 0) != nil {
		return true
	}
	n, err := compileNode(p, 0, "")
	if err != nil {
		return true
	}
	_, err = parseFieldPath(strings.TrimSpace(fp), n)
	return err == nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// checkDefaults validates every default against the schema of its node,
// as Kubernetes does: the value must validate (CEL rules included) and
// must not carry fields pruning would remove.
func checkDefaults(n *node, fp *field.Path, root bool) field.ErrorList {
	if n == nil {
		return nil
	}
	var errs field.ErrorList
	if n.hasDefault && !root {
		errs = append(errs, checkDefault(n, fp.Child("default"))...)
	}
	for _, k := range n.propNames {
		errs = append(errs, checkDefaults(n.properties[k], fp.Child("properties").Key(k), false)...)
	}
	if n.additional != nil {
		errs = append(errs, checkDefaults(n.additional, fp.Child("additionalProperties"), false)...)
	}
	if n.items != nil {
		errs = append(errs, checkDefaults(n.items, fp.Child("items"), false)...)
	}
	return errs
}

func checkDefault(n *node, dp *field.Path) field.ErrorList {
	v := valueValidator{base: dp}
	v.value(n, DeepCopyJSON(n.def), newPath(), nil, false)
	errs := v.errs
	if len(errs) == 0 && n.hasExtra {
		errs = append(errs, validateEmbedded(n, n.def, dp)...)
		errs = append(errs, validateListTypes(n, n.def, dp)...)
	}
	if len(errs) == 0 && n.hasCEL && n.def != nil {
		e := celEvaluator{ctx: context.Background(), budget: DefaultRuntimeCostBudget}
		e.walk(n, DeepCopyJSON(n.def), nil, nil)
		for _, ce := range e.errs {
			ce.Field = strings.TrimPrefix(dp.String()+"."+ce.Field, ".")
			if strings.HasSuffix(ce.Field, ".<nil>") {
				ce.Field = dp.String()
			}
		}
		errs = append(errs, e.errs...)
	}
	if len(errs) > 0 {
		return errs
	}
	pruned := DeepCopyJSON(n.def)
	var pr pruner
	pr.value(pruned, n, nil)
	if !EqualJSON(pruned, n.def) {
		return field.ErrorList{field.Invalid(dp, n.def, "must not have unknown fields")}
	}
	return nil
}
