package celpolicy

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Type names of mutating policies' expressions: Object (and its nested
// Object.<field>.<field>... types) builds an apply configuration,
// JSONPatch one JSON patch operation.
const (
	TypeObject    = "Object"
	TypeJSONPatch = "JSONPatch"
)

// mutationTypes is a types.Provider that knows the types of mutating
// policies on top of the admission environment's: every type named
// Object or Object.<path> is a struct whose fields are all dynamic, and
// JSONPatch has op, path, from and value. A value of either is built as a
// map from field name to value.
type mutationTypes struct {
	types.Provider
	adapter types.Adapter
}

func isMutationType(name string) bool {
	return name == TypeObject || strings.HasPrefix(name, TypeObject+".") || name == TypeJSONPatch
}

// FindStructType knows Object, Object.* and JSONPatch.
func (m *mutationTypes) FindStructType(name string) (*types.Type, bool) {
	if isMutationType(name) {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return m.Provider.FindStructType(name)
}

// FindStructFieldNames: Object types have any fields; JSONPatch its four.
func (m *mutationTypes) FindStructFieldNames(name string) ([]string, bool) {
	switch {
	case name == TypeJSONPatch:
		return []string{"op", "path", "from", "value"}, true
	case isMutationType(name):
		return nil, true
	}
	return m.Provider.FindStructFieldNames(name)
}

// FindStructFieldType gives every field of an Object type the dynamic
// type; JSONPatch's op, path and from are strings, value is dynamic.
func (m *mutationTypes) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if !isMutationType(name) {
		return m.Provider.FindStructFieldType(name, field)
	}
	t := types.DynType
	if name == TypeJSONPatch {
		switch field {
		case "op", "path", "from":
			t = types.StringType
		case "value":
		default:
			return nil, false
		}
	}
	get := func(target any) (any, error) {
		if mp, ok := target.(map[string]any); ok {
			return mp[field], nil
		}
		return nil, fmt.Errorf("no field %q", field)
	}
	has := func(target any) bool {
		mp, ok := target.(map[string]any)
		_, set := mp[field]
		return ok && set
	}
	return &types.FieldType{Type: t, GetFrom: get, IsSet: has}, true
}

// NewValue builds an Object or JSONPatch value as a map.
func (m *mutationTypes) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if !isMutationType(name) {
		return m.Provider.NewValue(name, fields)
	}
	kv := make(map[ref.Val]ref.Val, len(fields))
	for k, v := range fields {
		kv[types.String(k)] = v
	}
	return types.NewRefValMap(m.adapter, kv)
}

// mutationEnv is the admission environment with the mutation types.
var mutationEnv = sync.OnceValues(func() (*cel.Env, error) {
	base, err := env()
	if err != nil {
		return nil, err
	}
	return base.Extend(cel.CustomTypeProvider(&mutationTypes{Provider: base.CELTypeProvider(), adapter: base.CELTypeAdapter()}))
})

// CompileMutation compiles the expression of a mutating policy's
// ApplyConfiguration (an Object{...}) or JSONPatch (a list of
// JSONPatch{...}); its Eval returns JSON-shaped values (maps, slices,
// strings, int64, float64, bools, nil). The error wraps ErrCompile.
func CompileMutation(expr string) (*Program, error) {
	e, err := mutationEnv()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCompile, err)
	}
	ast, iss := e.Compile(expr)
	if iss.Err() != nil {
		return nil, fmt.Errorf("%w: %v", ErrCompile, iss.Err())
	}
	prog, err := e.Program(ast, cel.CostLimit(PerCallLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCompile, err)
	}
	return &Program{expr: expr, prog: prog, native: true}, nil
}

// nativeOf converts a CEL value to its JSON shape, maps and lists
// included.
func nativeOf(v ref.Val) (any, error) {
	switch x := v.(type) {
	case types.Null:
		return nil, nil
	case traits.Mapper:
		out := map[string]any{}
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k)
			}
			e, err := nativeOf(x.Get(k))
			if err != nil {
				return nil, err
			}
			out[ks] = e
		}
		return out, nil
	case traits.Lister:
		n, ok := x.Size().(types.Int)
		if !ok {
			return nil, fmt.Errorf("list without a size")
		}
		out := make([]any, int(n))
		for i := range out {
			e, err := nativeOf(x.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	if types.IsError(v) {
		return nil, fmt.Errorf("%v", v)
	}
	switch n := v.Value().(type) {
	case uint64:
		return int64(n), nil
	default:
		return n, nil
	}
}
