package schema

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/orkit/orkit/api/field"
)

// valueValidator walks a value against a node tree and collects errors
// worded as kube-openapi words them and converted to field errors as
// Kubernetes converts them (ValidateCustomResource).
type valueValidator struct {
	base *field.Path
	errs field.ErrorList
}

// name is the kube-openapi name of the value at p.
func name(p walkPath) string { return p.openAPIName() }

func (v *valueValidator) add(e *field.Error) { v.errs = append(v.errs, e) }

// typeErr reports kube-openapi's InvalidType: the bad value is the type
// (or format) the data has.
func (v *valueValidator) typeErr(p walkPath, want, got string) {
	n := name(p)
	v.add(field.TypeInvalid(childOf(v.base, n), got,
		fmt.Sprintf("%s in body must be of type %s: %q", n, want, got)))
}

// invalid reports any other kube-openapi failure as field.Invalid.
func (v *valueValidator) invalid(p walkPath, value any, msg string) {
	if value == nil {
		value = ""
	}
	v.add(field.Invalid(childOf(v.base, name(p)), value, msg))
}

// composite reports the allOf/anyOf/oneOf/not failures, which Kubernetes
// reports without a field path.
func (v *valueValidator) composite(msg string) {
	v.add(field.Invalid(v.base, "", msg))
}

// value validates x at p against n. On update, old is the correlated old
// value (hasOld false when there is none): a value equal to its old value
// is not validated again (Kubernetes' validation ratcheting), so that an
// object that became invalid under a tightened schema can still be
// updated elsewhere.
func (v *valueValidator) value(n *node, x any, p walkPath, old any, hasOld bool) {
	if n == nil {
		return
	}
	if hasOld && EqualJSON(x, old) {
		return
	}
	if x == nil {
		if n.types != tAny && !n.nullable {
			v.typeErr(p, n.typeString(), "null")
		}
		v.enum(n, x, p)
		return
	}
	ok := v.checkType(n, x, p)
	v.junctors(n, x, p)
	if ok {
		switch x := x.(type) {
		case string:
			v.str(n, x, p)
		case int64, float64:
			v.number(n, x, p)
		case []any:
			v.array(n, x, p, old, hasOld)
		}
	}
	v.enum(n, x, p)
	if m, isMap := x.(map[string]any); isMap && ok {
		v.object(n, m, p, old, hasOld)
	}
}

// checkType reports a type (or numeric format) mismatch as kube-openapi's
// type validator does.
func (v *valueValidator) checkType(n *node, x any, p walkPath) bool {
	if n.types == tAny {
		return true
	}
	got := typeName(x)
	contains := false
	switch x.(type) {
	case map[string]any:
		contains = n.types&tObject != 0
	case []any:
		contains = n.types&tArray != 0
	case string:
		contains = n.types&tString != 0
	case bool:
		contains = n.types&tBoolean != 0
	case int64:
		contains = n.types&(tInteger|tNumber) != 0
	case float64:
		contains = n.types&tNumber != 0 || (n.types&tInteger != 0 && isJSONInteger(x.(float64)))
	}
	if contains {
		return true
	}
	_, isStr := x.(string)
	_, isArr := x.([]any)
	if f := n.props.Format; !isStr && !isArr && n.format != "" && dataFormat(x) != n.format {
		v.typeErr(p, f, dataFormat(x))
		return false
	}
	v.typeErr(p, n.typeString(), got)
	return false
}

// dataFormat is the format kube-openapi infers for a decoded value.
func dataFormat(x any) string {
	switch x.(type) {
	case int64:
		return "int64"
	case float64:
		return "float64"
	}
	return ""
}

// isJSONInteger reports whether f is an integer JSON can carry exactly.
func isJSONInteger(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) <= 1<<53
}

func (v *valueValidator) str(n *node, s string, p walkPath) {
	switch {
	case n.maxLength != nil && int64(utf8.RuneCountInString(s)) > *n.maxLength:
		v.add(field.TooLong(childOf(v.base, name(p)), s, int(*n.maxLength)))
	case n.minLength != nil && int64(utf8.RuneCountInString(s)) < *n.minLength:
		v.invalid(p, s, fmt.Sprintf("%s in body should be at least %d chars long", name(p), *n.minLength))
	case n.pattern != nil && !n.pattern.MatchString(s):
		v.invalid(p, s, fmt.Sprintf("%s in body should match '%s'", name(p), n.props.Pattern))
	}
	if n.format != "" {
		if check, ok := formatCheckers[n.format]; ok && !check(s) {
			v.typeErr(p, n.props.Format, s)
		}
	}
}

func (v *valueValidator) number(n *node, x any, p walkPath) {
	i, isInt := x.(int64)
	f := asFloat(x)
	if n.format == "int32" && isInt && (i > math.MaxInt32 || i < math.MinInt32) {
		v.invalid(p, x, fmt.Sprintf("Checked value must be of type integer with format int32 in %s", name(p)))
	}
	if n.multipleOf != nil {
		v.multipleOf(n, x, p)
	}
	if n.maximum != nil {
		over := f > *n.maximum || (n.exclMax && f >= *n.maximum)
		if isInt {
			m := int64(*n.maximum)
			over = i > m || (n.exclMax && i >= m)
		}
		if over {
			op := "less than or equal to"
			if n.exclMax {
				op = "less than"
			}
			v.invalid(p, x, fmt.Sprintf("%s in body should be %s %s", name(p), op, limitText(*n.maximum, isInt)))
		}
	}
	if n.minimum != nil {
		under := f < *n.minimum || (n.exclMin && f <= *n.minimum)
		if isInt {
			m := int64(*n.minimum)
			under = i < m || (n.exclMin && i <= m)
		}
		if under {
			op := "greater than or equal to"
			if n.exclMin {
				op = "greater than"
			}
			v.invalid(p, x, fmt.Sprintf("%s in body should be %s %s", name(p), op, limitText(*n.minimum, isInt)))
		}
	}
}

func (v *valueValidator) multipleOf(n *node, x any, p walkPath) {
	factor := *n.multipleOf
	if factor <= 0 {
		v.invalid(p, factor, fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", name(p), factor))
		return
	}
	if i, ok := x.(int64); ok && factor == math.Trunc(factor) {
		if i%int64(factor) != 0 {
			v.invalid(p, x, fmt.Sprintf("%s in body should be a multiple of %v", name(p), int64(factor)))
		}
		return
	}
	d := asFloat(x)
	var mult float64
	if factor < 1 {
		mult = 1 / factor * d
	} else {
		mult = d / factor
	}
	if !isJSONInteger(mult) {
		v.invalid(p, x, fmt.Sprintf("%s in body should be a multiple of %v", name(p), factor))
	}
}

func limitText(f float64, asInt bool) string {
	if asInt {
		return fmt.Sprint(int64(f))
	}
	return fmt.Sprint(f)
}

func asFloat(x any) float64 {
	switch x := x.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func (v *valueValidator) array(n *node, a []any, p walkPath, old any, hasOld bool) {
	if n.items != nil {
		olds := correlatedItems(n, old, hasOld)
		for i, e := range a {
			o, ok := olds.get(n, e)
			v.value(n.items, e, p.index(i), o, ok)
		}
	}
	size := int64(len(a))
	if n.minItems != nil && size < *n.minItems {
		v.invalid(p, size, fmt.Sprintf("%s in body should have at least %d items", name(p), *n.minItems))
	}
	if n.maxItems != nil && size > *n.maxItems {
		v.add(field.TooMany(childOf(v.base, name(p)), len(a), int(*n.maxItems)))
	}
	if n.unique && len(a) > 1 {
		seen := make(map[string]bool, len(a))
		for _, e := range a {
			k := jsonKey(e)
			if seen[k] {
				v.invalid(p, "", fmt.Sprintf("%s in body shouldn't contain duplicates", name(p)))
				break
			}
			seen[k] = true
		}
	}
}

func (v *valueValidator) enum(n *node, x any, p walkPath) {
	if len(n.enum) == 0 {
		return
	}
	for _, e := range n.enum {
		if EqualJSON(x, e) {
			return
		}
	}
	var bad any = x
	if x == nil {
		bad = nullValue{}
	}
	v.add(field.NotSupported(childOf(v.base, name(p)), bad, n.enumText))
}

func (v *valueValidator) object(n *node, m map[string]any, p walkPath, old any, hasOld bool) {
	oldMap, _ := old.(map[string]any)
	hasOldMap := hasOld && oldMap != nil
	count := int64(len(m))
	if n.minProps != nil && count < *n.minProps {
		v.invalid(p, count, fmt.Sprintf("%s in body should have at least %d properties", name(p), *n.minProps))
	}
	if n.maxProps != nil && count > *n.maxProps {
		v.add(field.TooMany(childOf(v.base, name(p)), len(m), int(*n.maxProps)))
	}
	if n.addlSet && !n.addlAllows {
		for _, k := range sortedKeys(m) {
			if _, ok := n.properties[k]; !ok {
				v.invalid(p, k, fmt.Sprintf("%s.%s in body is a forbidden property", name(p), k))
			}
		}
	} else if n.additional != nil {
		for _, k := range sortedKeys(m) {
			if _, ok := n.properties[k]; !ok {
				o, ok := oldMap[k]
				v.value(n.additional, m[k], p.key(k), o, ok && hasOldMap)
			}
		}
	}
	for _, k := range n.propNames {
		if x, ok := m[k]; ok {
			o, found := oldMap[k]
			v.value(n.properties[k], x, p.prop(k), o, found && hasOldMap)
		}
	}
	for _, k := range n.required {
		if _, ok := m[k]; !ok {
			v.add(field.Required(childOf(v.base, strings.TrimPrefix(name(p)+"."+k, ".")), ""))
		}
	}
}

// junctors checks allOf, anyOf, oneOf and not as kube-openapi's schema
// props validator does: the failures of the best alternative are reported
// with a message naming the junctor.
func (v *valueValidator) junctors(n *node, x any, p walkPath) {
	if len(n.anyOf) > 0 {
		var best field.ErrorList
		ok := false
		for _, s := range n.anyOf {
			errs := v.sub(s, x, p)
			if len(errs) == 0 {
				ok = true
				break
			}
			if best == nil || len(errs) < len(best) {
				best = errs
			}
		}
		if !ok {
			v.composite(fmt.Sprintf("%q must validate at least one schema (anyOf)", name(p)))
			v.errs = append(v.errs, best...)
		}
	}
	if len(n.oneOf) > 0 {
		v.oneOf(n, x, p)
	}
	if len(n.allOf) > 0 {
		valid := 0
		for _, s := range n.allOf {
			errs := v.sub(s, x, p)
			if len(errs) == 0 {
				valid++
			}
			v.errs = append(v.errs, errs...)
		}
		if valid != len(n.allOf) {
			extra := ""
			if valid == 0 {
				extra = ". None validated"
			}
			v.composite(fmt.Sprintf("%q must validate all the schemas (allOf)%s", name(p), extra))
		}
	}
	if n.not != nil && len(v.sub(n.not, x, p)) == 0 {
		v.composite(fmt.Sprintf("%q must not validate the schema (not)", name(p)))
	}
}

func (v *valueValidator) oneOf(n *node, x any, p walkPath) {
	var best field.ErrorList
	valid := 0
	for _, s := range n.oneOf {
		errs := v.sub(s, x, p)
		if len(errs) == 0 {
			valid++
			continue
		}
		if valid == 0 && (best == nil || len(errs) < len(best)) {
			best = errs
		}
	}
	if valid == 1 {
		return
	}
	extra := "Found none valid"
	if valid > 1 {
		extra = fmt.Sprintf("Found %d valid alternatives", valid)
		best = nil
	}
	v.composite(fmt.Sprintf("%q must validate one and only one schema (oneOf). %s", name(p), extra))
	v.errs = append(v.errs, best...)
}

// sub validates x against an alternative s and returns its errors without
// recording them.
func (v *valueValidator) sub(s *node, x any, p walkPath) field.ErrorList {
	w := valueValidator{base: v.base}
	w.value(s, x, p, nil, false)
	return w.errs
}

// oldItems correlates the items of a list with the items of its old
// value: by key for lists of type map, by value for sets; items of atomic
// lists do not correlate.
type oldItems struct {
	byKey map[string]any
}

func correlatedItems(n *node, old any, hasOld bool) oldItems {
	l, ok := old.([]any)
	if !hasOld || !ok || (n.listType != "map" && n.listType != "set") {
		return oldItems{}
	}
	out := oldItems{byKey: make(map[string]any, len(l))}
	for _, e := range l {
		out.byKey[itemKey(n, e)] = e
	}
	return out
}

func (o oldItems) get(n *node, item any) (any, bool) {
	if o.byKey == nil {
		return nil, false
	}
	v, ok := o.byKey[itemKey(n, item)]
	return v, ok
}

// itemKey identifies an item of a list of type map (its keys) or set (its
// value).
func itemKey(n *node, item any) string {
	if n.listType == "map" {
		return mapKeyOf(n, item)
	}
	return jsonKey(item)
}
