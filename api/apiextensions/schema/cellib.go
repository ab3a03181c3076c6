package schema

import (
	"math"

	"net/url"
	"reflect"
	"regexp"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	"github.com/orkit/orkit/api/resource"
)

// baseEnv is the CEL environment every rule compiles in (built once,
// immutable, shared by every Schema), before the
// schema's types and self/oldSelf are added: CEL's standard library with
// optional types, the strings and sets extensions, and Kubernetes' list,
// regex, URL and quantity libraries.
var baseEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.ParserExpressionSizeLimit(maxRequestSizeBytes),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		cel.Lib(kubeLib{}),
	)
})

// kubeLib is the subset of Kubernetes' CEL libraries CRD rules commonly
// use: isSorted, sum, min, max, indexOf, lastIndexOf on lists; find and
// findAll on strings; url() and its accessors; quantity() and its
// arithmetic and comparisons.
type kubeLib struct{}

// LibraryName implements cel.Library.
func (kubeLib) LibraryName() string { return "orkit.kubernetes" }

var (
	urlType      = cel.ObjectType("kubernetes.URL")
	quantityType = cel.ObjectType("kubernetes.Quantity")
	comparables  = []*cel.Type{cel.IntType, cel.UintType, cel.DoubleType, cel.StringType, cel.BoolType, cel.BytesType, cel.DurationType, cel.TimestampType}
	summables    = []*cel.Type{cel.IntType, cel.UintType, cel.DoubleType, cel.DurationType}
)

// CompileOptions declares the functions and their cost estimates.
func (kubeLib) CompileOptions() []cel.EnvOption {
	opts := listFunctions()
	opts = append(opts, regexFunctions()...)
	opts = append(opts, urlFunctions()...)
	opts = append(opts, quantityFunctions()...)
	var est []checker.CostOption
	for _, id := range listOverloads {
		est = append(est, checker.OverloadCostEstimate(id, estimateListTraversal))
	}
	for _, id := range []string{"string_find_string", "string_find_all_string", "string_find_all_string_int"} {
		est = append(est, checker.OverloadCostEstimate(id, estimateRegex))
	}
	return append(opts, cel.CostEstimatorOptions(est...))
}

// ProgramOptions tracks the runtime cost of the functions.
func (kubeLib) ProgramOptions() []cel.ProgramOption {
	var tr []interpreter.CostTrackerOption
	for _, id := range listOverloads {
		tr = append(tr, interpreter.OverloadCostTracker(id, trackListTraversal))
	}
	for _, id := range []string{"string_find_string", "string_find_all_string", "string_find_all_string_int"} {
		tr = append(tr, interpreter.OverloadCostTracker(id, trackRegex))
	}
	return []cel.ProgramOption{cel.CostTrackerOptions(tr...)}
}

// listOverloads are the ids of the list functions, for cost tracking.
var listOverloads = func() []string {
	ids := []string{"list_a_indexOf_a", "list_a_lastIndexOf_a"}
	for _, f := range []struct {
		name string
		ts   []*cel.Type
	}{{"isSorted", comparables}, {"sum", summables}, {"min", comparables}, {"max", comparables}} {
		for _, t := range f.ts {
			ids = append(ids, listOverloadID(f.name, t))
		}
	}
	return ids
}()

func listOverloadID(name string, t *cel.Type) string { return "list_" + t.String() + "_" + name }

func listFunctions() []cel.EnvOption {
	fn := func(name string, ts []*cel.Type, result func(*cel.Type) *cel.Type, impl func(traits.Lister) ref.Val) cel.EnvOption {
		var ovs []cel.FunctionOpt
		for _, t := range ts {
			id := listOverloadID(name, t)
			ovs = append(ovs, cel.MemberOverload(id, []*cel.Type{cel.ListType(t)}, result(t),
				cel.UnaryBinding(func(v ref.Val) ref.Val { return impl(v.(traits.Lister)) })))
		}
		return cel.Function(name, ovs...)
	}
	same := func(t *cel.Type) *cel.Type { return t }
	boolean := func(*cel.Type) *cel.Type { return cel.BoolType }
	a := cel.TypeParamType("A")
	index := func(name string, last bool) cel.EnvOption {
		id := "list_a_" + name + "_a"
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{cel.ListType(a), a}, cel.IntType,
			cel.BinaryBinding(func(l, v ref.Val) ref.Val { return indexOf(l.(traits.Lister), v, last) })))
	}
	return []cel.EnvOption{
		fn("isSorted", comparables, boolean, isSorted),
		fn("sum", summables, same, sum),
		fn("min", comparables, same, func(l traits.Lister) ref.Val { return extreme(l, -1, "min") }),
		fn("max", comparables, same, func(l traits.Lister) ref.Val { return extreme(l, 1, "max") }),
		index("indexOf", false),
		index("lastIndexOf", true),
	}
}

func isSorted(l traits.Lister) ref.Val {
	var prev ref.Val
	it := l.Iterator()
	for it.HasNext() == types.True {
		v := it.Next()
		if prev != nil {
			c, ok := prev.(traits.Comparer)
			if !ok {
				return types.NoSuchOverloadErr()
			}
			if r := c.Compare(v); types.IsError(r) {
				return r
			} else if r.(types.Int) > 0 {
				return types.False
			}
		}
		prev = v
	}
	return types.True
}

func sum(l traits.Lister) ref.Val {
	var acc ref.Val
	it := l.Iterator()
	for it.HasNext() == types.True {
		v := it.Next()
		if acc == nil {
			acc = v
			continue
		}
		adder, ok := acc.(traits.Adder)
		if !ok {
			return types.NoSuchOverloadErr()
		}
		if acc = adder.Add(v); types.IsError(acc) {
			return acc
		}
	}
	if acc == nil {
		return types.IntZero
	}
	return acc
}

func extreme(l traits.Lister, want types.Int, name string) ref.Val {
	var best ref.Val
	it := l.Iterator()
	for it.HasNext() == types.True {
		v := it.Next()
		if best == nil {
			best = v
			continue
		}
		c, ok := v.(traits.Comparer)
		if !ok {
			return types.NoSuchOverloadErr()
		}
		r := c.Compare(best)
		if types.IsError(r) {
			return r
		}
		if r.(types.Int) == want {
			best = v
		}
	}
	if best == nil {
		return types.NewErr("%s called on empty list", name)
	}
	return best
}

func indexOf(l traits.Lister, v ref.Val, last bool) ref.Val {
	n := int(l.Size().(types.Int))
	for i := 0; i < n; i++ {
		j := i
		if last {
			j = n - 1 - i
		}
		if l.Get(types.Int(j)).Equal(v) == types.True {
			return types.Int(j)
		}
	}
	return types.Int(-1)
}

func regexFunctions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(func(s, re ref.Val) ref.Val {
				r, err := regexp.Compile(string(re.(types.String)))
				if err != nil {
					return types.WrapErr(err)
				}
				return types.String(r.FindString(string(s.(types.String))))
			}))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(s, re ref.Val) ref.Val { return findAll(s, re, -1) })),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return findAll(args[0], args[1], int(args[2].(types.Int))) }))),
	}
}

func findAll(s, re ref.Val, n int) ref.Val {
	r, err := regexp.Compile(string(re.(types.String)))
	if err != nil {
		return types.WrapErr(err)
	}
	return types.NewStringList(types.DefaultTypeAdapter, r.FindAllString(string(s.(types.String)), n))
}

// estimateListTraversal charges one unit per element (plus a traversal of
// each element for strings and bytes), as Kubernetes does.
func estimateListTraversal(est checker.CostEstimator, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if target == nil {
		return nil
	}
	el := checker.CostEstimate{Min: 1, Max: 1}
	if t := (*target).Type(); t.Kind() == types.ListKind && len(t.Parameters()) == 1 {
		if k := t.Parameters()[0].Kind(); k == types.StringKind || k == types.BytesKind {
			el = el.Add(checker.SizeEstimate{Min: 0, Max: maxRequestSizeBytes}.MultiplyByCostFactor(common.StringTraversalCostFactor))
		}
	}
	sz := sizeOf(est, *target)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCost(el)}
}

func estimateRegex(est checker.CostEstimator, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if target == nil || len(args) == 0 {
		return nil
	}
	sz := sizeOf(est, *target)
	str := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(common.StringTraversalCostFactor)
	re := sizeOf(est, args[0]).MultiplyByCostFactor(common.RegexStringLengthCostFactor)
	return &checker.CallEstimate{CostEstimate: str.Multiply(re), ResultSize: &sz}
}

func sizeOf(est checker.CostEstimator, n checker.AstNode) checker.SizeEstimate {
	if s := n.ComputedSize(); s != nil {
		return *s
	}
	if s := est.EstimateSize(n); s != nil {
		return *s
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

func trackListTraversal(args []ref.Val, _ ref.Val) *uint64 {
	var c uint64
	if len(args) > 0 {
		if l, ok := args[0].(traits.Sizer); ok {
			c = uint64(l.Size().(types.Int))
		}
	}
	return &c
}

func trackRegex(args []ref.Val, _ ref.Val) *uint64 {
	c := uint64(1)
	if len(args) >= 2 {
		s, _ := args[0].(types.String)
		re, _ := args[1].(types.String)
		str := uint64(math.Ceil((1.0 + float64(len(s))) * common.StringTraversalCostFactor))
		rc := uint64(math.Ceil(float64(len(re)) * common.RegexStringLengthCostFactor))
		c = str * rc
	}
	return &c
}

// urlVal is a parsed URL (kubernetes.URL).
type urlVal struct{ u *url.URL }

// ConvertToNative implements ref.Val.
func (v urlVal) ConvertToNative(t reflect.Type) (any, error) {
	if t == reflect.TypeOf(&url.URL{}) {
		return v.u, nil
	}
	return nil, errUnsupportedConversion
}

// ConvertToType implements ref.Val.
func (v urlVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.StringType:
		return types.String(v.u.String())
	case types.TypeType:
		return urlType
	}
	return types.NewErr("type conversion error from URL to '%s'", t)
}

// Equal implements ref.Val.
func (v urlVal) Equal(o ref.Val) ref.Val {
	w, ok := o.(urlVal)
	return types.Bool(ok && *v.u == *w.u)
}

// Type implements ref.Val.
func (v urlVal) Type() ref.Type { return urlType }

// Value implements ref.Val.
func (v urlVal) Value() any { return v.u }

func parseURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || (!u.IsAbs() && (u.Path == "" || u.Path[0] != '/')) {
		return nil, false
	}
	return u, true
}

func urlFunctions() []cel.EnvOption {
	str := func(name string, f func(*url.URL) string) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("url_"+name, []*cel.Type{urlType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(f(v.(urlVal).u)) })))
	}
	return []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{cel.StringType}, urlType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				u, ok := parseURL(string(v.(types.String)))
				if !ok {
					return types.NewErr("URL parse error during conversion from string: %v", v)
				}
				return urlVal{u}
			}))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val { _, ok := parseURL(string(v.(types.String))); return types.Bool(ok) }))),
		str("getScheme", func(u *url.URL) string { return u.Scheme }),
		str("getHost", func(u *url.URL) string { return u.Host }),
		str("getHostname", func(u *url.URL) string { return u.Hostname() }),
		str("getPort", func(u *url.URL) string { return u.Port() }),
		str("getEscapedPath", func(u *url.URL) string { return u.EscapedPath() }),
		cel.Function("getQuery", cel.MemberOverload("url_getQuery", []*cel.Type{urlType}, cel.MapType(cel.StringType, cel.ListType(cel.StringType)),
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				return types.DefaultTypeAdapter.NativeToValue(map[string][]string(v.(urlVal).u.Query()))
			}))),
	}
}

// quantityVal is a parsed resource quantity (kubernetes.Quantity).
type quantityVal struct{ q resource.Quantity }

// ConvertToNative implements ref.Val.
func (v quantityVal) ConvertToNative(t reflect.Type) (any, error) {
	if t == reflect.TypeOf(resource.Quantity{}) {
		return v.q, nil
	}
	return nil, errUnsupportedConversion
}

// ConvertToType implements ref.Val.
func (v quantityVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.StringType:
		return types.String(v.q.String())
	case types.TypeType:
		return quantityType
	}
	return types.NewErr("type conversion error from Quantity to '%s'", t)
}

// Equal implements ref.Val.
func (v quantityVal) Equal(o ref.Val) ref.Val {
	w, ok := o.(quantityVal)
	return types.Bool(ok && v.q.Equal(w.q))
}

// Type implements ref.Val.
func (v quantityVal) Type() ref.Type { return quantityType }

// Value implements ref.Val.
func (v quantityVal) Value() any { return v.q }

func quantityFunctions() []cel.EnvOption {
	q := func(v ref.Val) resource.Quantity { return v.(quantityVal).q }
	unary := func(name string, out *cel.Type, f func(resource.Quantity) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("quantity_"+name, []*cel.Type{quantityType}, out,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return f(q(v)) })))
	}
	binary := func(name string, out *cel.Type, f func(a, b resource.Quantity) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("quantity_"+name+"_quantity", []*cel.Type{quantityType, quantityType}, out,
			cel.BinaryBinding(func(a, b ref.Val) ref.Val { return f(q(a), q(b)) })))
	}
	arith := func(name string, sign int64) cel.EnvOption {
		do := func(a, b resource.Quantity) ref.Val {
			r := a.DeepCopy()
			if sign < 0 {
				r.Sub(b)
			} else {
				r.Add(b)
			}
			return quantityVal{r}
		}
		return cel.Function(name,
			cel.MemberOverload("quantity_"+name+"_quantity", []*cel.Type{quantityType, quantityType}, quantityType,
				cel.BinaryBinding(func(a, b ref.Val) ref.Val { return do(q(a), q(b)) })),
			cel.MemberOverload("quantity_"+name+"_int", []*cel.Type{quantityType, cel.IntType}, quantityType,
				cel.BinaryBinding(func(a, b ref.Val) ref.Val {
					var n resource.Quantity
					n.Set(int64(b.(types.Int)))
					return do(q(a), n)
				})))
	}
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, quantityType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				p, err := resource.ParseQuantity(string(v.(types.String)))
				if err != nil {
					return types.WrapErr(err)
				}
				return quantityVal{p}
			}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				_, err := resource.ParseQuantity(string(v.(types.String)))
				return types.Bool(err == nil)
			}))),
		unary("isInteger", cel.BoolType, func(x resource.Quantity) ref.Val {
			return types.Bool(x.CmpInt64(x.Value()) == 0)
		}),
		unary("asInteger", cel.IntType, func(x resource.Quantity) ref.Val {
			if x.CmpInt64(x.Value()) != 0 {
				return types.NewErr("cannot convert value to integer")
			}
			return types.Int(x.Value())
		}),
		unary("asApproximateFloat", cel.DoubleType, func(x resource.Quantity) ref.Val { return types.Double(x.AsApproximateFloat64()) }),
		unary("sign", cel.IntType, func(x resource.Quantity) ref.Val { return types.Int(x.Sign()) }),
		binary("isGreaterThan", cel.BoolType, func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) > 0) }),
		binary("isLessThan", cel.BoolType, func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) < 0) }),
		binary("compareTo", cel.IntType, func(a, b resource.Quantity) ref.Val { return types.Int(a.Cmp(b)) }),
		arith("add", 1),
		arith("sub", -1),
	}
}

// BaseCELEnv returns the CEL environment CRD rules compile in, before the
// schema's types and self/oldSelf are added: CEL's standard library with
// optional types, the strings and sets extensions, and Kubernetes' list,
// regex, URL and quantity libraries. It is built once and shared;
// callers extend it (env.Extend) and never change it. The error is the
// one building it failed with.
func BaseCELEnv() (*cel.Env, error) { return baseEnv() }

// BaseEnv returns the shared CEL environment CRD validation rules compile
// in (standard library, optional types, strings and sets extensions,
// Kubernetes' list, regex, URL and quantity functions) with no variables
// declared. Other API groups extend it with their own variables (DRA
// device selectors declare device). The environment is built once and
// immutable; the error is that of building it.
func BaseEnv() (*cel.Env, error) { return baseEnv() }

// QuantityValue returns q as a CEL value of BaseEnv's quantity type, for
// activations that pass quantities in (DRA device capacities).
func QuantityValue(q resource.Quantity) ref.Val { return quantityVal{q} }
