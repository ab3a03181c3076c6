package dra

import (
	"fmt"
	"strings"
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

// DeviceMatches evaluates a compiled selector against a device published
// by driver: the variable device has driver, attributes and capacity
// (both by domain, then name; a name without domain is the driver's) and
// allowMultipleAllocations. An evaluation error (a missing attribute, the
// cost limit) is returned as such; the caller decides (kube-scheduler
// treats it as no match and reports it).
func DeviceMatches(prg cel.Program, driver string, d *Device) (bool, error) {
	out, _, err := prg.Eval(map[string]any{"device": deviceValue(driver, d)})
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("selector evaluated to %v, not a bool", out.Value())
	}
	return b, nil
}

// deviceValue is the CEL form of a device.
func deviceValue(driver string, d *Device) map[string]any {
	attrs := map[string]map[string]any{}
	for name, a := range d.Attributes {
		domain, id := splitQualified(string(name), driver)
		if attrs[domain] == nil {
			attrs[domain] = map[string]any{}
		}
		attrs[domain][id] = attributeValue(a)
	}
	capacity := map[string]map[string]any{}
	for name, c := range d.Capacity {
		domain, id := splitQualified(string(name), driver)
		if capacity[domain] == nil {
			capacity[domain] = map[string]any{}
		}
		capacity[domain][id] = schema.QuantityValue(c.Value)
	}
	return map[string]any{
		"driver": driver, "attributes": attrs, "capacity": capacity,
		"allowMultipleAllocations": d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations,
	}
}

func splitQualified(name, driver string) (domain, id string) {
	if d, i, ok := strings.Cut(name, "/"); ok {
		return d, i
	}
	return driver, name
}

// attributeValue is an attribute's value for CEL (versions as strings).
func attributeValue(a DeviceAttribute) any {
	switch {
	case a.IntValue != nil:
		return *a.IntValue
	case a.BoolValue != nil:
		return *a.BoolValue
	case a.StringValue != nil:
		return *a.StringValue
	case a.VersionValue != nil:
		return *a.VersionValue
	case a.IntValues != nil:
		return a.IntValues
	case a.BoolValues != nil:
		return a.BoolValues
	case a.StringValues != nil:
		return a.StringValues
	}
	return a.VersionValues
}
