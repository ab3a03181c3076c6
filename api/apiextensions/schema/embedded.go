package schema

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// validateEmbedded checks apiVersion, kind and metadata of every embedded
// resource (x-kubernetes-embedded-resource) below n, as Kubernetes'
// objectmeta.Validate does; the root's own metadata is the API server's to
// check.
func validateEmbedded(n *node, x any, p *field.Path) field.ErrorList {
	if n == nil || !n.hasExtra {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if n.embedded {
			errs = append(errs, validateEmbeddedResource(x, p)...)
		}
		for _, k := range sortedKeys(x) {
			if c, ok := n.properties[k]; ok {
				errs = append(errs, validateEmbedded(c, x[k], p.Child(k))...)
			} else if n.additional != nil {
				errs = append(errs, validateEmbedded(n.additional, x[k], p.Key(k))...)
			}
		}
	case []any:
		for i, e := range x {
			errs = append(errs, validateEmbedded(n.items, e, p.Index(i))...)
		}
	}
	return errs
}

func validateEmbeddedResource(x map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, field.Required(p.Child("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	}
	for _, k := range sortedKeys(x) {
		v := x[k]
		switch k {
		case "apiVersion":
			errs = append(errs, validateAPIVersion(v, p.Child(k))...)
		case "kind":
			errs = append(errs, validateKind(v, p.Child(k))...)
		case "metadata":
			m, err := objectMetaOf(v)
			if err != nil {
				errs = append(errs, field.Invalid(p.Child(k), v, err.Error()))
				continue
			}
			if m.Name == "" {
				m.Name = "fakename"
			}
			errs = append(errs, validation.ValidateObjectMeta(m, m.Namespace != "", pathSegmentName, p.Child(k))...)
		}
	}
	return errs
}

func validateAPIVersion(v any, p *field.Path) field.ErrorList {
	s, ok := v.(string)
	switch {
	case !ok:
		return field.ErrorList{field.Invalid(p, v, "must be a string")}
	case s == "":
		return field.ErrorList{field.Required(p, "")}
	case strings.Count(s, "/") > 1:
		return field.ErrorList{field.Invalid(p, s, fmt.Sprintf("unexpected GroupVersion string: %s", s))}
	}
	return nil
}

func validateKind(v any, p *field.Path) field.ErrorList {
	s, ok := v.(string)
	switch {
	case !ok:
		return field.ErrorList{field.Invalid(p, v, "must be a string")}
	case s == "":
		return field.ErrorList{field.Required(p, "")}
	}
	if msgs := validation.IsDNS1035Label(strings.ToLower(s)); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, s, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ","))}
	}
	return nil
}

// pathSegmentName is Kubernetes' ValidatePathSegmentName: names may be
// anything that can be one segment of a URL path.
func pathSegmentName(name string, prefix bool) []string {
	if !prefix && (name == "." || name == "..") {
		return []string{fmt.Sprintf("may not be '%s'", name)}
	}
	var msgs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, fmt.Sprintf("may not contain '%s'", bad))
		}
	}
	return msgs
}

// objectMetaOf decodes the metadata of an embedded resource as an
// ObjectMeta.
func objectMetaOf(v any) (*meta.ObjectMeta, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := &meta.ObjectMeta{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

// coerceEmbedded normalises the metadata of every embedded resource below
// n (and of the root when root is true is left to the API server): it
// round-trips metadata through ObjectMeta, dropping fields ObjectMeta does
// not have, and checks that apiVersion and kind are strings. It returns
// the paths of the dropped fields.
func coerceEmbedded(n *node, x any, p walkPath, dropped *[]string) *field.Error {
	if n == nil || !n.hasExtra {
		return nil
	}
	switch x := x.(type) {
	case map[string]any:
		if n.embedded {
			if err := coerceResource(x, p, dropped); err != nil {
				return err
			}
		}
		for k, e := range x {
			if c, ok := n.properties[k]; ok {
				if err := coerceEmbedded(c, e, p.prop(k), dropped); err != nil {
					return err
				}
			} else if n.additional != nil {
				if err := coerceEmbedded(n.additional, e, p.key(k), dropped); err != nil {
					return err
				}
			}
		}
	case []any:
		for i, e := range x {
			if err := coerceEmbedded(n.items, e, p.index(i), dropped); err != nil {
				return err
			}
		}
	}
	return nil
}

func coerceResource(x map[string]any, p walkPath, dropped *[]string) *field.Error {
	for _, k := range []string{"apiVersion", "kind"} {
		if v, ok := x[k]; ok {
			if _, isStr := v.(string); !isStr {
				return field.Invalid(p.prop(k).fieldPath(nil), v, "must be a string")
			}
		}
	}
	md, ok := x["metadata"]
	if !ok {
		return nil
	}
	m, err := objectMetaOf(md)
	if err != nil {
		return field.Invalid(p.prop("metadata").fieldPath(nil), md, err.Error())
	}
	b, err := json.Marshal(m)
	if err != nil {
		return field.InternalError(p.prop("metadata").fieldPath(nil), err)
	}
	out, err := DecodeJSON(b)
	if err != nil {
		return field.InternalError(p.prop("metadata").fieldPath(nil), err)
	}
	if orig, isMap := md.(map[string]any); isMap {
		kept := out.(map[string]any)
		for _, k := range sortedKeys(orig) {
			if _, ok := kept[k]; !ok && orig[k] != nil && k != "creationTimestamp" {
				*dropped = append(*dropped, p.prop("metadata").prop(k).openAPIName())
			}
		}
	}
	x["metadata"] = out
	return nil
}
