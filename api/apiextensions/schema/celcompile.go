package schema

import (
	"fmt"
	"math"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"

	"github.com/orkit/orkit/api/field"
)

// CEL cost limits, as Kubernetes sets them.
const (
	// StaticEstimatedCostLimit is the largest estimated cost one rule (or
	// messageExpression) may have; a CRD with a costlier rule is refused.
	StaticEstimatedCostLimit = 10_000_000
	// StaticEstimatedCRDCostLimit is the largest estimated cost of all the
	// rules of one schema together.
	StaticEstimatedCRDCostLimit = 100_000_000
	// DefaultPerCallLimit is the runtime cost one evaluation of a rule may
	// spend before it is cancelled.
	DefaultPerCallLimit = 1_000_000
	// DefaultRuntimeCostBudget is the runtime cost all the rules may spend
	// validating one object.
	DefaultRuntimeCostBudget = 10_000_000
	// maxMessageExpressionLength is the longest message a messageExpression
	// may produce.
	maxMessageExpressionLength = 5 * 1024
)

// celRules are the compiled x-kubernetes-validations of one node.
type celRules struct {
	decl  *declType
	rules []*compiledRule
}

type compiledRule struct {
	rule            ValidationRule
	prog            cel.Program
	msgProg         cel.Program
	usesOldSelf     bool
	optionalOldSelf bool
	fieldPath       walkPath
}

// celCompiler compiles the rules of a schema tree and collects the errors
// Kubernetes reports for them at CRD creation.
type celCompiler struct {
	perCallLimit uint64
	builder      declBuilder
	prov         *celProvider
	decls        map[*node]*declType
	errs         field.ErrorList
	total        uint64
	expensive    []costEntry
}

type costEntry struct {
	path *field.Path
	cost uint64
}

// compileCEL compiles every rule below root and attaches it to its node.
// base is the path of the schema in the CRD (for errors).
func compileCEL(root *node, base *field.Path, perCallLimit uint64) field.ErrorList {
	if !markCEL(root) {
		return nil
	}
	env, err := baseEnv()
	if err != nil {
		return field.ErrorList{field.InternalError(base, err)}
	}
	c := &celCompiler{perCallLimit: perCallLimit, builder: declBuilder{objs: map[string]*declType{}}, decls: map[*node]*declType{}}
	c.prov = &celProvider{base: env.CELTypeProvider(), objs: c.builder.objs}
	rootDecl := c.builder.build(root, true, typeNameFor("self"))
	c.record(root, rootDecl)
	c.walk(root, base, 1, nil)
	if c.total > StaticEstimatedCRDCostLimit {
		for _, e := range c.expensive {
			c.errs = append(c.errs, field.Forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.errs = append(c.errs, field.Forbidden(base, costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, StaticEstimatedCRDCostLimit)))
	}
	return c.errs
}

// markCEL sets hasCEL on every node that has rules at or below it.
func markCEL(n *node) bool {
	if n == nil {
		return false
	}
	has := len(n.props.XValidations) > 0
	for _, c := range n.children() {
		if markCEL(c) {
			has = true
		}
	}
	n.hasCEL = has
	return has
}

// record remembers the declType of every node of a decl tree.
func (c *celCompiler) record(n *node, d *declType) {
	if n == nil || d == nil {
		return
	}
	c.decls[n] = d
	switch {
	case d.fields != nil:
		for _, f := range d.fields {
			if f.typ.n != nil {
				c.record(f.typ.n, f.typ)
			}
		}
	case d.elem != nil:
		c.record(d.elem.n, d.elem)
	}
}

// walk compiles the rules of n and its children. card is the most values
// n can describe in one object (0 for unbounded); uncorrelated is the path
// below which oldSelf cannot be used.
func (c *celCompiler) walk(n *node, p *field.Path, card uint64, uncorrelated *field.Path) {
	if n == nil || !n.hasCEL {
		return
	}
	if len(n.props.XValidations) > 0 {
		c.compileNode(n, p, card, uncorrelated)
	}
	for _, k := range n.propNames {
		c.walk(n.properties[k], p.Child("properties").Key(k), card, uncorrelated)
	}
	if n.additional != nil {
		c.walk(n.additional, p.Child("additionalProperties"), mulCard(card, n.maxProps), uncorrelated)
	}
	if n.items != nil {
		u := uncorrelated
		if u == nil && n.listType != "map" {
			u = p
		}
		c.walk(n.items, p.Child("items"), mulCard(card, n.maxItems), u)
	}
}

func mulCard(card uint64, limit *int64) uint64 {
	if card == 0 || limit == nil {
		return 0
	}
	l := uint64(max(*limit, 0))
	if l != 0 && card > math.MaxUint64/l {
		return math.MaxUint64
	}
	return card * l
}

func (c *celCompiler) compileNode(n *node, p *field.Path, card uint64, uncorrelated *field.Path) {
	rp := p.Child("x-kubernetes-validations")
	d, ok := c.decls[n]
	if !ok {
		d = c.builder.build(n, n.embedded, typeNameFor(p.String()))
		c.record(n, d)
	}
	if d == nil {
		c.errs = append(c.errs, field.InternalError(rp, fmt.Errorf("rule declared on schema that does not support validation rules type: '%s' x-kubernetes-preserve-unknown-fields: '%t'", n.typ, n.preserveUnknown)))
		return
	}
	envs := map[bool]*cel.Env{}
	rules := &celRules{decl: d}
	for i, r := range n.props.XValidations {
		optional := r.OptionalOldSelf != nil && *r.OptionalOldSelf
		env, ok := envs[optional]
		if !ok {
			var err error
			if env, err = c.env(d, optional); err != nil {
				c.errs = append(c.errs, field.InternalError(rp, err))
				return
			}
			envs[optional] = env
		}
		cr := c.compileRule(env, d, n, r, rp.Index(i), card, uncorrelated)
		if cr != nil {
			cr.optionalOldSelf = optional
			rules.rules = append(rules.rules, cr)
		}
	}
	if len(rules.rules) == len(n.props.XValidations) {
		n.cel = rules
	}
}

func (c *celCompiler) env(d *declType, optionalOldSelf bool) (*cel.Env, error) {
	base, err := baseEnv()
	if err != nil {
		return nil, err
	}
	old := d.cel
	if optionalOldSelf {
		old = cel.OptionalType(d.cel)
	}
	return base.Extend(cel.CustomTypeProvider(c.prov), cel.Variable("self", d.cel), cel.Variable("oldSelf", old))
}

// compileRule compiles one rule and its messageExpression, checks their
// types and costs, and returns nil when anything is wrong (the errors are
// recorded).
func (c *celCompiler) compileRule(env *cel.Env, d *declType, n *node, r ValidationRule, p *field.Path, card uint64, uncorrelated *field.Path) *compiledRule {
	bad := len(c.errs)
	if strings.TrimSpace(r.Rule) == "" {
		return nil // reported by the schema checks
	}
	cr := &compiledRule{rule: r}
	est := &sizeEstimator{root: d}
	if ast, iss := env.Compile(r.Rule); iss != nil && iss.Err() != nil {
		c.errs = append(c.errs, field.Invalid(p.Child("rule"), ruleValue(r), "compilation failed: "+iss.String()))
	} else if ast.OutputType() != cel.BoolType {
		c.errs = append(c.errs, field.Invalid(p.Child("rule"), ruleValue(r), "cel expression must evaluate to a bool"))
	} else {
		for _, ref := range ast.NativeRep().ReferenceMap() {
			if ref.Name == "oldSelf" {
				cr.usesOldSelf = true
			}
		}
		cr.prog = c.program(env, ast, p.Child("rule"), r)
		c.cost(env, ast, est, p.Child("rule"), "estimated rule cost", card, d)
	}
	if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) != "" {
		cr.msgProg = c.compileMessage(env, est, r, p, card, d)
	}
	if cr.usesOldSelf && uncorrelated != nil {
		c.errs = append(c.errs, field.Invalid(p.Child("rule"), r.Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", uncorrelated)))
	}
	if !cr.usesOldSelf && r.OptionalOldSelf != nil && cr.prog != nil {
		c.errs = append(c.errs, field.Invalid(p.Child("optionalOldSelf"), *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
	}
	if fp := strings.TrimSpace(r.FieldPath); fp != "" {
		if wp, err := parseFieldPath(fp, n); err == nil {
			cr.fieldPath = wp
		}
	}
	if len(c.errs) > bad {
		return nil
	}
	return cr
}

func (c *celCompiler) compileMessage(env *cel.Env, est *sizeEstimator, r ValidationRule, p *field.Path, card uint64, d *declType) cel.Program {
	ast, iss := env.Compile(r.MessageExpression)
	switch {
	case iss != nil && iss.Err() != nil:
		c.errs = append(c.errs, field.Invalid(p.Child("messageExpression"), ruleValue(r), "messageExpression compilation failed: "+iss.String()))
		return nil
	case ast.OutputType() != cel.StringType:
		c.errs = append(c.errs, field.Invalid(p.Child("messageExpression"), ruleValue(r), "messageExpression must evaluate to a string"))
		return nil
	}
	c.cost(env, ast, est, p.Child("messageExpression"), "estimated messageExpression cost", card, d)
	return c.program(env, ast, p.Child("messageExpression"), r)
}

func (c *celCompiler) program(env *cel.Env, ast *cel.Ast, p *field.Path, r ValidationRule) cel.Program {
	prog, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(c.perCallLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		c.errs = append(c.errs, field.Invalid(p, ruleValue(r), "program instantiation failed: "+err.Error()))
		return nil
	}
	return prog
}

// cost estimates an expression's cost times the number of values the
// node can describe, refuses it above StaticEstimatedCostLimit and adds
// it to the schema's total.
func (c *celCompiler) cost(env *cel.Env, ast *cel.Ast, est *sizeEstimator, p *field.Path, what string, card uint64, d *declType) {
	ce, err := env.EstimateCost(ast, est)
	if err != nil {
		c.errs = append(c.errs, field.InternalError(p, fmt.Errorf("cost estimation failed: %w", err)))
		return
	}
	if card == 0 {
		card = uint64(maxRequestSizeBytes / (d.minSize + 1))
	}
	total := ce.Max
	if total != 0 {
		if math.MaxUint64/total < card {
			total = math.MaxUint64
		} else {
			total *= card
		}
	}
	if total > StaticEstimatedCostLimit {
		c.errs = append(c.errs, field.Forbidden(p, costErrorMessage(what, total, StaticEstimatedCostLimit)))
	}
	if math.MaxUint64-c.total < total {
		c.total = math.MaxUint64
	} else {
		c.total += total
	}
	c.expensive = append(c.expensive, costEntry{p, total})
	if len(c.expensive) > 4 {
		minI := 0
		for i, e := range c.expensive {
			if e.cost < c.expensive[minI].cost {
				minI = i
			}
		}
		c.expensive = append(c.expensive[:minI], c.expensive[minI+1:]...)
	}
}

// costErrorMessage is Kubernetes' wording of a cost over a limit.
func costErrorMessage(what string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, factor)
}

// sizeEstimator gives the cost estimator the size bounds of schema values
// (maxLength, maxItems, maxProperties, or what fits in a request).
type sizeEstimator struct {
	root *declType
}

// EstimateSize bounds the size of a value reached from self or oldSelf by
// the schema of its path.
func (e *sizeEstimator) EstimateSize(el checker.AstNode) *checker.SizeEstimate {
	path := el.Path()
	if len(path) == 0 || (path[0] != "self" && path[0] != "oldSelf") {
		return nil
	}
	d := e.root
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			d = d.elem
		case "@keys":
			return &checker.SizeEstimate{Min: 0, Max: maxRequestSizeBytes - 2}
		default:
			f, ok := d.fields[name]
			if !ok {
				return nil
			}
			d = f.typ
		}
		if d == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(max(d.maxElements, 0))}
}

// EstimateCallCost bounds what CEL's own estimator leaves unbounded: the
// conversion of a scalar to a string has a short result, and comparing a
// type or a scalar costs one unit.
func (e *sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	switch overloadID {
	case overloads.IntToString, overloads.UintToString, overloads.DoubleToString, overloads.BoolToString,
		overloads.TimestampToString, overloads.DurationToString:
		return &checker.CallEstimate{CostEstimate: checker.FixedCostEstimate(1), ResultSize: &checker.SizeEstimate{Min: 1, Max: 64}}
	case overloads.Equals, overloads.NotEquals:
		if len(args) == 2 && (scalarKind(args[0].Type()) || scalarKind(args[1].Type())) {
			return &checker.CallEstimate{CostEstimate: checker.FixedCostEstimate(1)}
		}
	}
	return nil
}

// scalarKind reports types whose values compare in constant time.
func scalarKind(t *types.Type) bool {
	switch t.Kind() {
	case types.TypeKind, types.IntKind, types.UintKind, types.DoubleKind, types.BoolKind, types.NullTypeKind,
		types.TimestampKind, types.DurationKind:
		return true
	}
	return false
}

// ruleValue renders a rule as Kubernetes prints it as the bad value of a
// CRD validation error.
type ruleValue ValidationRule

// String renders the rule as Go syntax, as Kubernetes prints it.
func (r ruleValue) String() string {
	reason := "(*apiextensions.FieldValueErrorReason)(nil)"
	if r.Reason != nil {
		reason = fmt.Sprintf("(*apiextensions.FieldValueErrorReason)(%q)", string(*r.Reason))
	}
	oos := "(*bool)(nil)"
	if r.OptionalOldSelf != nil {
		oos = fmt.Sprintf("(*bool)(%t)", *r.OptionalOldSelf)
	}
	return fmt.Sprintf("apiextensions.ValidationRule{Rule:%q, Message:%q, MessageExpression:%q, Reason:%s, FieldPath:%q, OptionalOldSelf:%s}",
		r.Rule, r.Message, r.MessageExpression, reason, r.FieldPath, oos)
}
