package dra

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"

	"github.com/orkit/orkit/api/apiextensions/schema"
)

// Limits on CEL device selectors, as kube-apiserver's.
const (
	// MaxCELExpressionLength is the longest selector expression (10 KiB).
	MaxCELExpressionLength = 10 * 1024
	// MaxCELCost is the highest estimated cost of a selector.
	MaxCELCost = 1000000
	// maxDeviceEntries bounds the size of the device's maps and strings
	// in the cost estimate: a device has at most 32 attributes and
	// capacities, and attribute strings have at most 64 characters.
	maxDeviceEntries = 64
)

// deviceEnv is the environment selectors compile in: the CRD rules'
// base environment plus the variable device (driver, attributes,
// capacity, allowMultipleAllocations), declared as a map of dynamic
// values so that any field path type-checks as kube's declared object
// type would let it.
var deviceEnv = sync.OnceValues(func() (*cel.Env, error) {
	base, err := schema.BaseEnv()
	if err != nil {
		return nil, err
	}
	return base.Extend(cel.Variable("device", cel.MapType(cel.StringType, cel.DynType)))
})

// CompileSelector compiles a CEL device selector and returns its
// program. The error says why the expression is unusable, in
// kube-apiserver's words ("compilation failed: ...", "must evaluate to
// bool or the unknown type, not ...", "too complex, exceeds cost limit");
// it never panics on any input.
func CompileSelector(expression string) (cel.Program, error) {
	env, err := deviceEnv()
	if err != nil {
		return nil, fmt.Errorf("unexpected error loading CEL environment: %w", err)
	}
	ast, issues := env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		return nil, fmt.Errorf("compilation failed: %s", issues.String())
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) && !t.IsExactType(cel.DynType) {
		return nil, fmt.Errorf("must evaluate to bool or the unknown type, not %s", t.String())
	}
	cost, err := env.EstimateCost(ast, deviceSizes{})
	if err != nil {
		return nil, fmt.Errorf("cost estimation failed: %w", err)
	}
	if cost.Max > MaxCELCost {
		return nil, errTooComplex
	}
	prg, err := env.Program(ast, cel.CostLimit(MaxCELCost))
	if err != nil {
		return nil, fmt.Errorf("program instantiation failed: %w", err)
	}
	return prg, nil
}

// deviceSizes estimates the sizes of a device's values for the cost
// check: every map, list and string has at most maxDeviceEntries
// elements.
type deviceSizes struct{}

// EstimateSize implements checker.CostEstimator.
func (deviceSizes) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: maxDeviceEntries}
}

// EstimateCallCost implements checker.CostEstimator; the library's own
// estimates apply.
func (deviceSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
