package celpolicy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/orkit/orkit/api/apiextensions/schema"
)

// PerCallLimit is the runtime cost one evaluation may spend, as
// Kubernetes sets it for admission expressions.
const PerCallLimit = 1_000_000

// ErrCompile is wrapped by the errors of Compile.
var ErrCompile = errors.New("compilation failed")

// Result is the type an expression must evaluate to.
type Result int

// The result types.
const (
	// Bool: validations and matchConditions.
	Bool Result = iota
	// String: messageExpressions.
	String
	// Any: variables.
	Any
)

// names of the variables every admission expression may use.
const (
	VarObject          = "object"
	VarOldObject       = "oldObject"
	VarParams          = "params"
	VarRequest         = "request"
	VarNamespaceObject = "namespaceObject"
	VarVariables       = "variables"
)

// env is the admission environment: the Kubernetes base environment with
// the admission variables declared as dynamic values.
var env = sync.OnceValues(func() (*cel.Env, error) {
	base, err := schema.BaseCELEnv()
	if err != nil {
		return nil, err
	}
	return base.Extend(
		cel.Variable(VarObject, cel.DynType),
		cel.Variable(VarOldObject, cel.DynType),
		cel.Variable(VarParams, cel.DynType),
		cel.Variable(VarRequest, cel.DynType),
		cel.Variable(VarNamespaceObject, cel.DynType),
		cel.Variable(VarVariables, cel.MapType(cel.StringType, cel.DynType)),
	)
})

// Program is one compiled expression. It is immutable and safe for
// concurrent use.
type Program struct {
	expr   string
	prog   cel.Program
	native bool // convert maps and lists to their JSON shape (CompileMutation)
}

// Compile parses and checks expr, which must evaluate to want. The error
// wraps ErrCompile and reads as Kubernetes reports it in a field error:
// "compilation failed: ERROR: <input>:1:1: ...".
func Compile(expr string, want Result) (*Program, error) {
	e, err := env()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCompile, err)
	}
	ast, iss := e.Compile(expr)
	if iss.Err() != nil {
		return nil, fmt.Errorf("%w: %v", ErrCompile, iss.Err())
	}
	out := ast.OutputType()
	switch {
	case want == Bool && !out.IsAssignableType(cel.BoolType) && out != cel.DynType:
		return nil, fmt.Errorf("%w: must evaluate to bool", ErrCompile)
	case want == String && !out.IsAssignableType(cel.StringType) && out != cel.DynType:
		return nil, fmt.Errorf("%w: must evaluate to string", ErrCompile)
	}
	prog, err := e.Program(ast, cel.CostLimit(PerCallLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCompile, err)
	}
	return &Program{expr: expr, prog: prog}, nil
}

// Expression returns the source of p.
func (p *Program) Expression() string { return p.expr }

// Activation holds the variables of one evaluation: JSON-shaped values
// (maps, slices, strings, int64, float64, bools, nil) as ToValue makes
// them. A missing variable is null.
type Activation map[string]any

// Eval evaluates p in act and returns the native result (bool, string or
// JSON-shaped value). An error is an evaluation failure (a missing field,
// a type mismatch, the cost limit).
func (p *Program) Eval(act Activation) (any, error) {
	vars := make(map[string]any, 6)
	for _, n := range []string{VarObject, VarOldObject, VarParams, VarRequest, VarNamespaceObject} {
		vars[n] = act[n]
	}
	if v, ok := act[VarVariables]; ok {
		vars[VarVariables] = v
	} else {
		vars[VarVariables] = map[string]any{}
	}
	val, _, err := p.prog.Eval(vars)
	if err != nil {
		return nil, err
	}
	if types.IsError(val) {
		return nil, fmt.Errorf("%v", val)
	}
	if p.native {
		return nativeOf(val)
	}
	return val.Value(), nil
}

// EvalBool evaluates a Bool program.
func (p *Program) EvalBool(act Activation) (bool, error) {
	v, err := p.Eval(act)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("expression %q evaluated to %T, not bool", p.expr, v)
	}
	return b, nil
}

// ToValue turns any JSON-marshalable value (an API object) into the
// JSON-shaped value CEL sees: objects as map[string]any, integers as
// int64, other numbers as float64. nil stays nil.
func ToValue(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return FromJSON(b)
}

// FromJSON decodes JSON into the shape ToValue gives.
func FromJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return normalize(out), nil
}

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}
