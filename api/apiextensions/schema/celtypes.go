package schema

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Size limits Kubernetes uses to bound CEL cost estimates where a schema
// declares none.
const (
	// maxRequestSizeBytes is the largest request body the API server
	// accepts: no string, list or map in an object can be larger.
	maxRequestSizeBytes = 3 * 1024 * 1024
	minStringSize       = 2  // ""
	minDurationSize     = 4  // "0s"
	maxDurationSize     = 32 // the longest duration string
	jsonDateSize        = 12 // "2006-01-02"
	minDatetimeSize     = 22 // "2006-01-02T15:04:05Z"
	maxDatetimeSize     = 64 // with fractional seconds and an offset
)

// declType is the CEL view of a schema node: its CEL type, for objects the
// fields CEL rules can reach, and the size bounds the cost estimator uses.
type declType struct {
	cel *types.Type
	n   *node // nil for the implicit metadata fields

	// fields of an object type, keyed by escaped CEL name.
	fields map[string]*declField
	// elem is the item type of a list or the value type of a map.
	elem *declType
	// conv says whether values of this type need converting from JSON
	// (numbers to doubles, formatted strings to timestamps, ...).
	conv bool

	maxElements int64
	minSize     int64
}

type declField struct {
	name string // the JSON property name
	typ  *declType
	ft   *types.FieldType
}

var errNoCELType = errors.New("no CEL type")

// declBuilder builds the declTypes of a schema and names its object types
// uniquely.
type declBuilder struct {
	objs map[string]*declType
}

// build returns the declType of n, or nil when CEL rules cannot see n
// (no type, or a preserve-unknown-fields value with no structure).
func (b *declBuilder) build(n *node, resourceRoot bool, name string) *declType {
	if n == nil {
		return nil
	}
	if n.intOrString {
		return &declType{cel: cel.DynType, n: n, minSize: 1, maxElements: maxRequestSizeBytes - 2}
	}
	switch n.typ {
	case "array":
		return b.list(n, name)
	case "object":
		if n.additional != nil {
			return b.mapType(n, name)
		}
		return b.object(n, resourceRoot, name)
	case "string":
		return stringDecl(n)
	case "boolean":
		return &declType{cel: cel.BoolType, n: n, minSize: 4}
	case "number":
		return &declType{cel: cel.DoubleType, n: n, minSize: 1, conv: true}
	case "integer":
		return &declType{cel: cel.IntType, n: n, minSize: 1}
	}
	return nil
}

func (b *declBuilder) list(n *node, name string) *declType {
	if n.items == nil {
		return nil
	}
	it := b.build(n.items, n.items.embedded, name+".@items")
	if it == nil {
		return nil
	}
	d := &declType{cel: cel.ListType(it.cel), n: n, elem: it, minSize: 2,
		conv: it.conv || n.listType == "set" || n.listType == "map"}
	if n.maxItems != nil {
		d.maxElements = max(*n.maxItems, 0)
	} else {
		d.maxElements = (maxRequestSizeBytes - 2) / (it.minSize + 1)
	}
	return d
}

func (b *declBuilder) mapType(n *node, name string) *declType {
	vt := b.build(n.additional, n.additional.embedded, name+".@values")
	if vt == nil {
		return nil
	}
	d := &declType{cel: cel.MapType(cel.StringType, vt.cel), n: n, elem: vt, minSize: 2, conv: vt.conv}
	if n.maxProps != nil {
		d.maxElements = max(*n.maxProps, 0)
	} else {
		d.maxElements = (maxRequestSizeBytes - 2) / (vt.minSize + 6)
	}
	return d
}

func (b *declBuilder) object(n *node, resourceRoot bool, name string) *declType {
	d := &declType{cel: types.NewObjectType(name), n: n, fields: map[string]*declField{}, minSize: 2}
	required := map[string]bool{}
	for _, r := range n.required {
		required[r] = true
	}
	for _, k := range n.propNames {
		c := n.properties[k]
		ft := b.build(c, c.embedded, name+"."+k)
		if ft == nil {
			continue
		}
		if esc, ok := celEscape(k); ok {
			d.fields[esc] = newDeclField(k, ft)
		}
		if required[k] && !c.hasDefault {
			d.minSize += int64(len(k)) + ft.minSize + 4
		}
	}
	if resourceRoot {
		b.addTypeMeta(d, name)
	}
	b.objs[name] = d
	return d
}

// addTypeMeta makes apiVersion, kind, metadata.name and
// metadata.generateName visible at the root of a resource even when the
// schema does not declare them, as Kubernetes does.
func (b *declBuilder) addTypeMeta(d *declType, name string) {
	str := &declType{cel: cel.StringType, minSize: minStringSize, maxElements: maxRequestSizeBytes - 2}
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := d.fields[k]; !ok {
			d.fields[k] = newDeclField(k, str)
		}
	}
	mname := name + ".metadata"
	md := &declType{cel: types.NewObjectType(mname), fields: map[string]*declField{}, minSize: 2}
	md.fields["name"] = newDeclField("name", str)
	md.fields["generateName"] = newDeclField("generateName", str)
	b.objs[mname] = md
	d.fields["metadata"] = newDeclField("metadata", md)
}

func stringDecl(n *node) *declType {
	d := &declType{cel: cel.StringType, n: n, minSize: minStringSize, maxElements: maxRequestSizeBytes - 2}
	switch n.props.Format {
	case "byte":
		d.cel, d.conv = cel.BytesType, true
	case "duration":
		d.cel, d.conv, d.minSize, d.maxElements = cel.DurationType, true, minDurationSize, maxDurationSize
		return d
	case "date":
		d.cel, d.conv, d.minSize, d.maxElements = cel.TimestampType, true, jsonDateSize, jsonDateSize
		return d
	case "date-time":
		d.cel, d.conv, d.minSize, d.maxElements = cel.TimestampType, true, minDatetimeSize, maxDatetimeSize
		return d
	}
	if n.maxLength != nil {
		d.maxElements = max(*n.maxLength, 0) * 4
	}
	return d
}

func newDeclField(name string, t *declType) *declField {
	f := &declField{name: name, typ: t}
	f.ft = &types.FieldType{
		Type: t.cel,
		IsSet: func(target any) bool {
			m, ok := target.(map[string]any)
			if !ok {
				return false
			}
			_, found := m[name]
			return found
		},
		GetFrom: func(target any) (any, error) {
			m, ok := target.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("no such key: %s", name)
			}
			v, found := m[name]
			if !found {
				return nil, fmt.Errorf("no such key: %s", name)
			}
			return t.value(v), nil
		},
	}
	return f
}

// value converts a JSON value described by d into what CEL sees: a double
// for a number, a timestamp, duration or bytes for those formats, lists
// and maps converted element by element when their elements need it.
// Objects stay maps: their fields convert when selected.
func (d *declType) value(v any) any {
	if d == nil || !d.conv || v == nil {
		return v
	}
	switch x := v.(type) {
	case int64:
		if d.cel == cel.DoubleType {
			return float64(x)
		}
	case string:
		return convertString(d, x)
	case []any:
		out := x
		if d.elem.conv {
			out = make([]any, len(x))
			for i, e := range x {
				out[i] = d.elem.value(e)
			}
		}
		if d.n != nil && (d.n.listType == "set" || d.n.listType == "map") {
			return newKeyedList(d.n, out)
		}
		return out
	case map[string]any:
		if d.elem == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = d.elem.value(e)
		}
		return out
	}
	return v
}

func convertString(d *declType, s string) any {
	switch d.cel {
	case cel.BytesType:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return types.NewErr("invalid bytes: %v", err)
		}
		return types.Bytes(b)
	case cel.DurationType:
		dur, err := time.ParseDuration(s)
		if err != nil {
			return types.NewErr("invalid duration %q", s)
		}
		return types.Duration{Duration: dur}
	case cel.TimestampType:
		if d.n != nil && d.n.props.Format == "date" {
			t, err := time.Parse("2006-01-02", s)
			if err != nil {
				return types.NewErr("invalid date %q", s)
			}
			return types.Timestamp{Time: t}
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return types.NewErr("invalid datetime %q", s)
		}
		return types.Timestamp{Time: t}
	}
	return s
}

// celProvider exposes the object types of a schema to the CEL checker and
// runtime, on top of the environment's own provider.
type celProvider struct {
	base types.Provider
	objs map[string]*declType
}

// EnumValue implements types.Provider.
func (p *celProvider) EnumValue(name string) ref.Val { return p.base.EnumValue(name) }

// FindIdent implements types.Provider.
func (p *celProvider) FindIdent(name string) (ref.Val, bool) { return p.base.FindIdent(name) }

// FindStructType implements types.Provider: the schema's object types first.
func (p *celProvider) FindStructType(name string) (*types.Type, bool) {
	if d, ok := p.objs[name]; ok {
		return types.NewTypeTypeWithParam(d.cel), true
	}
	return p.base.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (p *celProvider) FindStructFieldNames(name string) ([]string, bool) {
	d, ok := p.objs[name]
	if !ok {
		return p.base.FindStructFieldNames(name)
	}
	return sortedKeys(d.fields), true
}

// FindStructFieldType implements types.Provider: a field of a schema object
// type reads its property from the object's map.
func (p *celProvider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	d, ok := p.objs[name]
	if !ok {
		return p.base.FindStructFieldType(name, fieldName)
	}
	f, ok := d.fields[fieldName]
	if !ok {
		return nil, false
	}
	return f.ft, true
}

// NewValue implements types.Provider; schema objects cannot be constructed.
func (p *celProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objs[name]; ok {
		return types.NewErr("cannot construct schema object %s", name)
	}
	return p.base.NewValue(name, fields)
}

// celReserved are CEL's reserved words: a property of that name is
// reachable as __name__.
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true,
	"const": true, "continue": true, "else": true, "for": true, "function": true, "if": true,
	"import": true, "let": true, "loop": true, "package": true, "namespace": true,
	"return": true, "var": true, "void": true, "while": true,
}

var escapeMatcher = regexp.MustCompile(`(__|[-./]|[^a-zA-Z0-9-./_])`)

// celEscape turns a property name into the CEL identifier rules use for it
// ("__" → "__underscores__", "." → "__dot__", "-" → "__dash__", "/" →
// "__slash__", reserved words → "__word__"); false for names CEL cannot
// reach (starting with a digit, or with other characters).
func celEscape(ident string) (string, bool) {
	if ident == "" || (ident[0] >= '0' && ident[0] <= '9') {
		return "", false
	}
	if celReserved[ident] {
		return "__" + ident + "__", true
	}
	ok := true
	out := escapeMatcher.ReplaceAllStringFunc(ident, func(s string) string {
		switch s {
		case "__":
			return "__underscores__"
		case ".":
			return "__dot__"
		case "-":
			return "__dash__"
		case "/":
			return "__slash__"
		}
		ok = false
		return ""
	})
	return out, ok
}

// typeNameFor names the object type of a schema path for CEL. The name
// cannot be read as an expression ("self.spec" would be), so the checker
// never resolves a field selection as a type name.
func typeNameFor(path string) string {
	return "schema:" + path
}
